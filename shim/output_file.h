/* Files named by the user: REPRISE_LOG_FILE and REPRISE_TRACE. */
#ifndef REPRISE_OUTPUT_FILE_H
#define REPRISE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Expands %p to pid and %% to %; false if the result does not fit. */
bool expand_path_template(const char *tmpl, long pid, char *out, size_t len);

/* Opens the expanded template for appending; -1 with errno set on failure. */
int open_output_file(const char *tmpl, char *expanded, size_t len);

#endif
