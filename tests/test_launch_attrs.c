/* SPDX-License-Identifier: MIT */
/* Unit test of the launch attributes' table (policy/launch_attrs.def): one decision per attribute CUDA 13 defines. */
#include "config.h"

#include <string.h>

#include "check.h"
#include "launch_attrs.h"

/* Checks every row and the ids the table lacks. */
int main(void)
{
    /* CUDA 13 defines ids 0 to 14 and 16: each has a row, a name and a reason. */
    for (unsigned id = 0; id <= 16; id++) {
        const char *name = launch_attr_name(id);
        if (id == 15) {
            CHECK(name == NULL);
            continue;
        }
        CHECK(name != NULL && strncmp(name, "CU_LAUNCH_ATTRIBUTE_", 20) == 0);
        CHECK(launch_attr_why(id) != NULL && strlen(launch_attr_why(id)) > 10);
        CHECK(launch_attr_value_bytes(id) <= 64); /* CUlaunchAttributeValue is 64 bytes */
        CHECK(id == 0 || launch_attr_value_bytes(id) > 0);
    }
    /* The decisions docs/design.md records. */
    CHECK(launch_attr_action(0) == LAUNCH_ATTR_IGNORED);
    CHECK_STR_EQ(launch_attr_name(LAUNCH_ATTR_PROGRAMMATIC), "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION");
    CHECK(launch_attr_action(LAUNCH_ATTR_PROGRAMMATIC) == LAUNCH_ATTR_EDGE);
    const unsigned kept[] = {1, 2, 4, 5, 8, 9, 10, 11, 14, 16}, boundaries[] = {3, 7, 12, 13};
    for (unsigned i = 0; i < sizeof kept / sizeof kept[0]; i++)
        CHECK(launch_attr_action(kept[i]) == LAUNCH_ATTR_KEPT);
    for (unsigned i = 0; i < sizeof boundaries / sizeof boundaries[0]; i++)
        CHECK(launch_attr_action(boundaries[i]) == LAUNCH_ATTR_BOUNDARY);
    CHECK_STR_EQ(launch_attr_name(7), "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT");
    CHECK_STR_EQ(launch_attr_name(16), "CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING");
    /* The value bytes a signature hashes: an int, a cluster's three unsigned, the memory sync domain map's two bytes. */
    CHECK(launch_attr_value_bytes(LAUNCH_ATTR_PROGRAMMATIC) == 4);
    CHECK(launch_attr_value_bytes(4) == 12);
    CHECK(launch_attr_value_bytes(9) == 2);
    /* Ids the table lacks (15, and those of a later CUDA) are boundaries, unknown by name. */
    const unsigned unknown[] = {15, 17, 31, 32, 1000, 0xffffffffu};
    for (unsigned i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK(launch_attr_action(unknown[i]) == LAUNCH_ATTR_BOUNDARY);
        CHECK(launch_attr_name(unknown[i]) == NULL);
        CHECK(launch_attr_value_bytes(unknown[i]) == 0);
        CHECK(strstr(launch_attr_why(unknown[i]), "does not know") != NULL);
    }
    return check_result("test_launch_attrs");
}
