/* reprise check: whether the shim can see a program's work, without running it. */
#include "config.h"

#include "reprise.h"

/* reprise check [--json] PROGRAM: returns the exit status. */
int cmd_check(int argc, char **argv)
{
    die("reprise check is not written yet");
}
