#!/bin/sh
# ln -s: relative and absolute targets, links into a directory, -f
# replacing, -n with a link to a directory, and hard links to directories.
mkdir dir; echo data > dir/file
ln -s dir/file rel; cat rel
ln -s "$PWD/dir/file" abs; cat abs; readlink abs | sed "s|$PWD|PWD|"
ln -s ../file dir/up; readlink dir/up; cat dir/up 2>/dev/null || echo "dangling: $?"
mkdir into; ln -s ../dir/file into; readlink into/file; cat into/file
ln -s dir dlink
ln -s other rel 2>/dev/null; echo "exists: $?"
ln -sf other rel; echo "-f: $? $(readlink rel)"
ln -sfn newtarget dlink; echo "-n on dir link: $(readlink dlink)"; ls dir
ln dir hard 2>/dev/null; echo "hard link to dir: $?"
ln -s '' empty 2>/dev/null; echo "empty target: $?"
ls -1 | sort
exit 0
