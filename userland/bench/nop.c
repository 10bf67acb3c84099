/* nop: the program the exec benchmarks start. It does nothing and exits 0,
 * so what they measure is the kernel's process creation, exec and exit
 * (plus musl's few hundred instructions of static start-up). */
int main(void)
{
    return 0;
}
