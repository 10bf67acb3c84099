#!/bin/sh
# Output redirection: > creates and truncates, >> appends, >| and numbered fds.
echo one > f
echo two >> f
echo three >> f
cat f
echo new > f
echo "after truncate: $(cat f) ($(wc -l < f) line)"
: > empty
echo "empty size: $(wc -c < empty)"
{ echo a; echo b; } > g
cat g
echo x 1> h
echo y 1>> h
cat h
for i in 1 2 3; do echo "loop $i"; done > loop.out
cat loop.out
echo "redirect before command" > pre; cat pre
> only; echo "bare redirect made a file: $([ -f only ] && echo yes)"
exit 0
