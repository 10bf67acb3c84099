#!/bin/bash
# util-linux's SysV IPC tools: ipcmk making a message queue, a semaphore
# set and a shared memory segment; ipcs listing them (keys and ids vary:
# owner, perms and sizes are shown), its limits (-l) and summary (-u);
# ipcs -i on each; ipcrm by id and by key, and errors for what is gone.
cols() { awk 'NF && $1 ~ /^0x/ { $1 = "KEY"; $2 = "ID"; print }'; }
q=$(ipcmk -Q -p 0640 | awk '{ print $NF }')
s=$(ipcmk -S 3 -p 0600 | awk '{ print $NF }')
m=$(ipcmk -M 10000 -p 0660 | awk '{ print $NF }')
echo "made: $([ -n "$q" ] && [ -n "$s" ] && [ -n "$m" ] && echo yes)"
ipcs -q | cols
ipcs -s | cols
ipcs -m | cols
ipcs -l
ipcs -u
ipcs -q -i "$q" | grep -E 'uid|mode|cbytes|qbytes|qnum' | sed 's/msqid=[0-9]*/msqid=ID/'
ipcs -s -i "$s" | grep -E 'uid|mode|nsems|^[0-9]'
ipcs -m -i "$m" | grep -E 'uid|mode|bytes|nattch' | sed 's/cpid=[0-9]*/cpid=PID/'
key=$(ipcs -m | awk -v id="$m" '$2 == id { print $1 }')
ipcrm -q "$q" && echo "queue removed"
ipcrm -s "$s" && echo "semaphores removed"
ipcrm -M "$key" && echo "segment removed by key"
ipcrm -q "$q" 2>&1 | sed "s/$q/ID/"
ipcs -q | cols | wc -l
ipcs -a | cols | wc -l
exit 0
