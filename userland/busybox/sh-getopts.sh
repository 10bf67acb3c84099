#!/bin/sh
# getopts: flags, options with arguments (attached and separate),
# grouped flags, --, OPTIND afterwards, unknown options and missing
# arguments in normal and silent (leading :) modes.
parse() {
  OPTIND=1
  while getopts "ab:c" opt "$@"; do
    case $opt in
      a) echo "  flag a";; b) echo "  b=[$OPTARG]";; c) echo "  flag c";;
      \?) echo "  unknown";; :) echo "  missing";;
    esac
  done
  shift $((OPTIND - 1)); echo "  rest: $*"
}
echo "1:"; parse -a -b val file1 file2
echo "2:"; parse -ac -bATTACHED x
echo "3:"; parse -a -- -b notopt
echo "4:"; parse -z -a 2>/dev/null
echo "5:"; parse -b 2>/dev/null
silent() {
  OPTIND=1
  while getopts ":ab:" opt "$@"; do
    case $opt in \?) echo "  bad option $OPTARG";; :) echo "  -$OPTARG needs an argument";; *) echo "  $opt";; esac
  done
}
echo "6:"; silent -x -a -b
echo "7:"; parse plain -a; echo "  OPTIND=$OPTIND"
exit 0
