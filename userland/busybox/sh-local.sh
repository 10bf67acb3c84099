#!/bin/sh
# Functions with local: a local hides the global and restores it,
# dynamic scoping (callees see the caller's locals), recursion with
# locals, local without a value, unset of a local, return statuses.
x=global
show() { echo "show sees x=$x"; }
f() { local x=in-f; show; g; echo "f after g: x=$x"; }
g() { x=changed-by-g; }
f; echo "after f: x=$x"
fact() { local n=$1; if [ "$n" -le 1 ]; then echo 1; else echo $((n * $(fact $((n - 1))))); fi; }
echo "fact 10: $(fact 10)"
depth() { local d=$1; [ "$d" -lt 3 ] && depth $((d + 1)); echo "unwind $d"; }
depth 0
h() { local y; echo "y=[${y-unset}]"; y=set; }
y=outer; h; echo "y after h: $y"
k() { local z=1; unset z; echo "z=[${z-unset}]"; }
z=global-z; k; echo "z after k: $z"
r() { return $1; }; r 0; echo "r 0: $?"; r 7; echo "r 7: $?"
count() { echo $#; }; count a "b c" ""; count
exit 0
