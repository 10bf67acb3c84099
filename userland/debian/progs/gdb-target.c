/* The program the gdb script debugs (built with Debian's gcc, -g -O0):
 * a function to break in, a global to watch, a loop to step through. */
#include <stdio.h>

int counter;

int square(int x)
{
    int r = x * x;
    return r;
}

int main(void)
{
    int total = 0;
    for (int i = 1; i <= 3; i++) {
        counter = i * 10;
        total += square(i);
    }
    printf("total %d\n", total);
    return 0;
}
