#!/bin/bash
# perl-base one-liners: regexes, hashes, sort, sprintf, split/join,
# pack/unpack, -n/-p/-i/-l/-a switches, file I/O, system and backticks, POSIX.
perl -e 'print "hello from perl $]\n" =~ s/ \d\.\d+//r'
perl -le 'my %h = (b => 2, a => 1, c => 3); print join ",", map { "$_=$h{$_}" } sort keys %h'
perl -le 'print join " ", sort { $a <=> $b } (10, 9, 100, 1)'
perl -le 'printf "%.3f %05d %s\n", 3.14159, 42, "x" x 3'
perl -le '$_ = "2024-05-06"; my ($y, $m, $d) = /(\d+)-(\d+)-(\d+)/; print "$d/$m/$y"'
perl -le 'print unpack("H*", pack("N n C", 1, 2, 3))'
seq 1 5 | perl -ne 'print if $_ % 2'
seq 1 3 | perl -pe 's/(\d)/<$1>/'
printf 'a b\nc d\n' | perl -lane 'print $F[1]'
printf 'x\ny\n' > f; perl -i -pe 'tr/a-z/A-Z/' f; cat f
perl -e 'open my $fh, ">", "w.txt" or die; print $fh "line$_\n" for 1..3; close $fh; open $fh, "<", "w.txt"; my @l = <$fh>; print scalar(@l), " lines, last $l[-1]"'
perl -le 'my $out = `echo backtick`; chomp $out; print $out; system("true") == 0 and print "system ok"; system("sh", "-c", "exit 3"); print "exit ", $? >> 8'
perl -MPOSIX -le 'print POSIX::floor(2.7), " ", POSIX::strftime("%Y-%m-%d", gmtime(0))'
perl -le 'my $pid = fork; if (!$pid) { exit 5 } waitpid($pid, 0); print "child exit ", $? >> 8'
perl -le 'opendir my $d, "."; print join " ", sort grep { !/^\./ } readdir $d'
exit 0
