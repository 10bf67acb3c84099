#!/bin/bash
# git on a disk file system: init, commits with fixed dates (so the object
# ids are the same under every kernel), branches, a merge, diff, log,
# status, gc (pack-objects with threads), fsck, and a clone.
set -u
export GIT_AUTHOR_NAME=k GIT_AUTHOR_EMAIL=k@example.org GIT_COMMITTER_NAME=k GIT_COMMITTER_EMAIL=k@example.org
export GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' GIT_COMMITTER_DATE='2020-01-01T00:00:00Z'
export HOME=/mnt/githome GIT_CONFIG_NOSYSTEM=1
cd /mnt && rm -rf repo clone githome && mkdir githome repo && cd repo
git init -q -b main . && echo "init ok"
seq 1 500 > nums; printf 'hello\n' > greet; mkdir -p src && for i in $(seq 1 30); do echo "file $i" > src/f$i.txt; done
git add -A && git commit -q -m first && git rev-parse HEAD
git checkout -q -b side
sed -i 's/^1$/one/' nums; echo side >> greet; git commit -q -am side && git rev-parse HEAD
git checkout -q main
echo main > extra; git add extra; git commit -q -m "main work" && git rev-parse HEAD
git merge -q --no-edit side && echo "merged"; git rev-parse HEAD
git log --oneline --graph | sed 's/^/  /'
git diff --stat HEAD~2 HEAD | tail -1
git status --porcelain; echo "status clean: $?"
git mv greet greeting && git rm -q src/f1.txt && git commit -q -m moves && git rev-parse HEAD
git show --stat --format=%s HEAD | sed '/^$/d'
git gc -q && echo "gc ok"; ls .git/objects/pack/*.pack | wc -l
git fsck --full 2>&1 && echo "fsck ok"
git count-objects -v | grep -E '^(count|in-pack|packs)'
cd /mnt && git clone -q repo clone && cd clone && git log --format='%H %s' | head -3
git grep -c file -- 'src/*' | wc -l
git blame -s nums | sed -n 1,2p
exit 0
