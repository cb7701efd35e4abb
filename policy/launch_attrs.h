/* SPDX-License-Identifier: MIT */
/* What the shim does with each launch attribute of cuLaunchKernelEx and cudaLaunchKernelExC (launch_attrs.def). */
#ifndef REPRISE_LAUNCH_ATTRS_H
#define REPRISE_LAUNCH_ATTRS_H

/* What happens to a launch carrying an attribute (launch_attrs.def says each one's). */
enum launch_attr_action {
    LAUNCH_ATTR_IGNORED,  /* nothing to keep */
    LAUNCH_ATTR_KEPT,     /* held back; its kernel node gets the attribute */
    LAUNCH_ATTR_EDGE,     /* held back; non-zero: its edge from the stream's previous kernel node is programmatic */
    LAUNCH_ATTR_BOUNDARY, /* not held back: the launch ends a region */
};

/* The id of CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the attribute an EDGE row describes. */
#define LAUNCH_ATTR_PROGRAMMATIC 6

/* What the shim does with a launch carrying attribute id (an id the table lacks: LAUNCH_ATTR_BOUNDARY). */
enum launch_attr_action launch_attr_action(unsigned id);

/* The attribute's name in cuda.h ("CU_LAUNCH_ATTRIBUTE_PRIORITY"); NULL for an id the table lacks. */
const char *launch_attr_name(unsigned id);

/* Why the attribute is treated so, in words; for an id the table lacks, that it is unknown. */
const char *launch_attr_why(unsigned id);

/* The bytes of the attribute's value that mean something (0 for an id the table lacks). */
unsigned launch_attr_value_bytes(unsigned id);

#endif
