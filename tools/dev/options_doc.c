/* SPDX-License-Identifier: MIT */
/* Prints the REPRISE_* options table as Markdown, from policy/options.def. */
#include "config.h"

#include <stdio.h>

#include "options.h"

/* Writes the table to stdout. */
int main(void)
{
    options_write_markdown(stdout);
    return 0;
}
