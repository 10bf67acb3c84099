/* Exits with the status given as its first argument (default 0). */
#include "common.h"

int main(int argc, char **argv)
{
    return argc > 1 ? atoi(argv[1]) : 0;
}
