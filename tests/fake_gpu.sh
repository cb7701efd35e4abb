# SPDX-License-Identifier: MIT
# Shared by the tests of the GPU scripts' verdicts (tests/zoo_verdicts.sh, tests/gpu_suite_verdicts.sh): a fake
# nvidia-smi and a fake member program, so that what those scripts conclude is tested without a GPU.

# Skips without what the scripts need; makes $WORK/gpu/nvidia-smi, which lists a GPU, $WORK/nogpu/nvidia-smi,
# which fails, and a fake build's folders, $WORK/build/.libs and APPS ($WORK/build/kernels/apps).
fake_gpu_setup() {
    command -v bash > /dev/null 2>&1 || skip "no bash"
    command -v timeout > /dev/null 2>&1 || skip "no timeout command (the scripts need it)"
    fake_nvidia_smi "$WORK/gpu" yes
    fake_nvidia_smi "$WORK/nogpu" no
    APPS="$WORK/build/kernels/apps"
    mkdir -p "$APPS" "$WORK/build/.libs"
}

# Passes if run $1 (its output in $WORK/$1.out) exited $2 (in $WORK/$1.status).
expect_status() {
    [ "$(cat "$WORK/$1.status")" -eq "$2" ] ||
        { fail "run $1: exit $(cat "$WORK/$1.status"), expected $2"; tail -40 "$WORK/$1.out" | sed 's/^/  | /' >&2; }
}

# Writes a fake nvidia-smi into folder $1 (made; put it first on PATH): with $2 = yes it lists one GPU, with no
# it fails as it does on a machine without one.
fake_nvidia_smi() {
    mkdir -p "$1"
    if [ "$2" = yes ]; then
        printf '#!/bin/sh\necho "GPU 0: Fake GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)"\n' > "$1/nvidia-smi"
    else
        printf '#!/bin/sh\necho "NVIDIA-SMI has failed (fake: no GPU)"\nexit 9\n' > "$1/nvidia-smi"
    fi
    chmod +x "$1/nvidia-smi"
}

# Writes the fake member program $1.  Run as a program (kernels/apps/NAME), its key is its file name; run as a
# Python (PYTHON=$1) with a script, the script's name and first argument ("zoo_jax.py:eager").  FAKE_BEHAVIOUR
# ("KEY=WHAT ...") says what it does; WHAT (default good):
#   good       prints a result (and on stderr a timing line: its pid), exit 0; preloaded in auto mode, 10 replays in
#              its log (REPRISE_LOG_FILE; "replayed on the robust path" under REPRISE_REPLAY=robust)
#   followed   the same, but its log only says that a region was not graphed
#   silent     the same, and its log says nothing of regions
#   differ     prints another result under auto
#   crash      killed by SIGABRT under robust (not SIGSEGV: a sanitizer build's runtime would catch that and report)
#   skipjax    exits 77 as zoo_jax.py does without JAX's GPU backend; skipnogpu as it does when JAX sees no GPU
#   skip       exits 77 as a program whose library is missing
fake_member() {
    cat > "$1" << 'EOF'
#!/bin/sh
case "${1:-}" in
*.py) key="${1##*/}:${2:-}" ;;
*) key=${0##*/} ;;
esac
what=good
for entry in ${FAKE_BEHAVIOUR:-}; do
    [ "${entry%%=*}" = "$key" ] && what=${entry#*=}
done
mode=none
if [ -n "${LD_PRELOAD:-}" ]; then
    case "${REPRISE_MODE:-auto}:${REPRISE_REPLAY:-auto}" in
    off:*) mode=off ;;
    *:robust) mode=robust ;;
    *) mode=auto ;;
    esac
fi
case "$what" in
skipjax) echo "zoo_jax: JAX has no GPU backend (fake); skipping" >&2; exit 77 ;;
skipnogpu) echo "zoo_jax: JAX sees no GPU; skipping" >&2; exit 77 ;;
skip) echo "fake: no library (fake); skipping" >&2; exit 77 ;;
esac
result=42
[ "$what" = differ ] && [ "$mode" = auto ] && result=43
echo "fake $key: result $result"
echo "median_us $$" >&2
log=
case "$mode" in
auto | robust) [ -n "${REPRISE_LOG_FILE:-}" ] && log=$(echo "$REPRISE_LOG_FILE" | sed "s/%p/fake$$/") ;;
esac
replayed="replayed as a graph (5 calls in one launch, 0 nodes patched)"
[ "$mode" = robust ] && replayed="replayed on the robust path (instantiated)"
if [ -n "$log" ]; then
    case "$what" in
    followed) echo "reprise[$$:1] info: region 1: not graphed: fake" >> "$log" ;;
    silent) echo "reprise[$$:1] info: fake: nothing of regions" >> "$log" ;;
    *) for region in 1 2 3 4 5 6 7 8 9 10; do echo "reprise[$$:1] info: region $region: $replayed" >> "$log"; done ;;
    esac
fi
if [ "$what" = crash ] && [ "$mode" = robust ]; then
    ulimit -c 0 2> /dev/null
    kill -ABRT $$
fi
exit 0
EOF
    chmod +x "$1"
}
