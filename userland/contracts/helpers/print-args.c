/* Prints its argument count, each argument, and every environment variable
 * whose name starts with CONTRACT_ (in order). Used by exec tests. */
#include "common.h"

extern char **environ;

int main(int argc, char **argv)
{
    out("print-args: argc=%d", argc);
    for (int i = 0; i < argc; i++)
        out("print-args: argv[%d]=%s", i, argv[i]);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "CONTRACT_", 9) == 0)
            out("print-args: env %s", *e);
    return 0;
}
