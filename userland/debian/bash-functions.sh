#!/bin/bash
# Functions: arguments, local and dynamic scope, return status, recursion,
# FUNCNAME, declare -f, exported functions seen by a child bash.
fact() { local n=$1; if (( n <= 1 )); then echo 1; else echo $(( n * $(fact $((n - 1))) )); fi; }
echo "10! = $(fact 10)"
outer() { local v=outer; inner; echo "outer sees v=$v"; }
inner() { echo "inner sees v=$v (${FUNCNAME[0]} from ${FUNCNAME[1]})"; v=changed; }
v=global; outer; echo "global v=$v"
status() { return "$1"; }
status 7; echo "return: $?"
args() { echo "argc=$# first=$1 all=$*"; shift 2; echo "after shift: $@"; }
args a b c d
greet() { echo "hi from exported $1"; }
export -f greet
bash -c 'greet child'
declare -f status
type -t fact
exit 0
