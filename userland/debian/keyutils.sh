#!/bin/bash
# keyutils' keyctl over the kernel's keys, in a new anonymous session
# keyring (`keyctl session -`): add, print, pipe, rdescribe, newring,
# search (found and not), link and unlink, show and list (serials are
# random: masked), timeout (the key expires), revoke, request failing
# without a key, the keys' lines in /proc/keys; then a named session
# keyring (`keyctl session NAME`).
mask() { sed -E 's/^ *[0-9]{3,}/N/; s/[0-9]{5,}/N/g'; }
export -f mask
keyctl session - bash -c '
k=$(keyctl add user k1 hello @s) && echo added
keyctl print "$k"
keyctl pipe "$k"; echo
keyctl rdescribe "$k"
keyctl describe "$k" | mask
r=$(keyctl newring ring @s) && echo newring
k2=$(keyctl add user k2 two "$r")
[ "$(keyctl search @s user k2)" = "$k2" ] && echo search found k2
keyctl search @s user nosuch; echo "search nosuch: status $?"
keyctl link "$k" "$r" && echo linked
keyctl show @s | mask
keyctl list "$r" | mask
keyctl unlink "$k" "$r" && echo unlinked
keyctl rlist "$r" | wc -w
keyctl timeout "$k2" 1 && echo timeout set
sleep 2.5
keyctl print "$k2"; echo "print expired: status $?"
keyctl revoke "$k" && echo revoked
keyctl print "$k"; echo "print revoked: status $?"
keyctl request user nosuch; echo "request nosuch: status $?"
grep -E " (user|keyring) +(k1|k2|ring|_ses)" /proc/keys | cut -c10-16,28- | sort
' 2>&1 | mask
keyctl session kevlar-named bash -c 'keyctl rdescribe @s | cut -d";" -f1,5; keyctl show @s' 2>&1 | mask
exit 0
