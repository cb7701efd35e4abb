# Shared by the stand-in's shell tests: where things are, and a failure tally.
# Automake's test driver sets top_builddir and top_srcdir (Makefile.am).
: "${top_builddir:=.}" "${top_srcdir:=.}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/standin-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0

# Prints a failure and counts it.
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# Ends the test with the right exit status.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures failure(s)" >&2
        exit 1
    fi
    exit 0
}
