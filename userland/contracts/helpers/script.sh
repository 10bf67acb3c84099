#!/contracts/helpers/print-args -x
This file is a script: the kernel runs the interpreter named on line 1.
