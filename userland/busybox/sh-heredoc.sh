#!/bin/sh
# Here-documents: expansion, quoted delimiters, <<- tab stripping, to a command's stdin.
name=world
cat <<END
hello $name
sum $((2 + 3))
cmd $(echo sub)
END
cat <<'END'
no $expansion here $(echo x)
END
cat <<"END"
also $literal
END
cat <<-END
	tabs stripped
		both tabs
	END
wc -l <<END
1
2
3
END
while read a b; do echo "[$a|$b]"; done <<END
x 1
y 2
END
cat <<END | tr a-z A-Z
piped heredoc
END
f() { cat; }
f <<END
to a function
END
exit 0
