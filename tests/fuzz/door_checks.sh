# SPDX-License-Identifier: MIT
# The driver door's checks, shared by tests/fuzz/differential.sh and threads_differential.sh (sourced):
# the shim saw the driver calls of every seed that made some, and replayed them.  Reads $WORK/door.*
# (one line per seed: seed, driver calls, driver-only, direct calls seen, replays, replays of 8+ calls)
# and $seeds; reports with fail (tests/lib.sh).

# A worker's line for $WORK/door.*: seed $1; the program's driver_door and driver_only counts from its stdout
# $2 ("stress kinds: ..."); from the auto run's trace $3, the driver calls the shim's wrappers saw (the exit
# event's direct_calls), the replays, and the replays of regions of 8 or more calls.
door_stats() {
    door=$(sed -n 's/^stress kinds: .* driver_door \([0-9]*\) driver_only \([0-9]*\).*/\1 \2/p' "$2")
    awk -v seed="$1" -v door="${door:-0 0}" '
        /"ev":"exit"/ && match($0, /"foreign_calls":\{[^}]*\}/) {
            n = split(substr($0, RSTART, RLENGTH), parts, ":")
            for (i = 3; i <= n; i++) foreign += parts[i] + 0
        }
        /"ev":"region_summary"/ {
            r = match($0, /"replays":[0-9]+/) ? substr($0, RSTART + 10, RLENGTH - 10) : 0
            replays += r
            if (match($0, /"calls":[0-9]+/) && substr($0, RSTART + 8, RLENGTH - 8) + 0 >= 8) long += r
        }
        END { printf "%s %s %d %d %d\n", seed, door, foreign, replays, long }' "$3" 2> /dev/null ||
        echo "$1 ${door:-0 0} 0 0 0"
}

check_driver_door() {
    cat "$WORK"/door.* > "$WORK/door"
    awk '
        $2 > 0 { door++; if ($4 > 0) seen++; else unseen = unseen " " $1; if ($5 > 0) replayed++; if ($6 > 0) long++ }
        $3 > 0 { only++; if ($6 > 0) only_long++ }
        END { print door + 0, seen + 0, replayed + 0, long + 0, only + 0, only_long + 0, (unseen == "" ? "-" : unseen) }
    ' "$WORK/door" > "$WORK/door.totals"
    read -r door seen door_replayed door_long only only_long unseen < "$WORK/door.totals"
    echo "driver door: driver calls in $door of $seeds seeds, seen by the shim in $seen, graphs replayed in" \
        "$door_replayed, regions of 8 or more calls in $door_long; every call through the driver in $only seeds," \
        "regions of 8 or more calls replayed in $only_long of them"
    [ "$seen" -eq "$door" ] || fail "the shim saw no driver call in seeds with driver calls:$unseen"
    [ $((door_long * 2)) -ge "$door" ] ||
        fail "regions of 8 or more calls were replayed in only $door_long of the $door seeds with driver calls"
    [ "$seeds" -lt 200 ] || [ $((only_long * 2)) -ge "$only" ] ||
        fail "regions of 8 or more calls were replayed in only $only_long of the $only driver-only seeds"
}
