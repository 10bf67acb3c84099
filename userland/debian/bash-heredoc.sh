#!/bin/bash
# Here-strings, here-documents (quoted, unquoted, <<- with tabs), read -r
# with IFS, read -a, printf %q.
v="a b  c"
tr ' ' '_' <<< "$v"
read -r x y z <<< "one two three four"
echo "x=$x y=$y z=$z"
IFS=: read -r -a parts <<< "root:x:0:0:root:/root:/bin/bash"
echo "fields: ${#parts[@]} shell: ${parts[6]}"
name=world
cat <<EOT
hello $name $((1 + 2))
EOT
cat <<'EOT'
literal $name $((1 + 2))
EOT
cat <<-EOT
	tabs stripped
		(one level)
	EOT
printf '%q\n' "it's a \"test\"" 'tab	here'
wc -c <<< ""
exit 0
