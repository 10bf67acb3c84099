/* For tests of mountable file system types: print the type and options
 * of each /proc/self/mounts line for DIR under the working directory
 * (not the path itself, which depends on where the test runs). */
static void show_mounts(const char *label, const char *dir)
{
    char cwd[512], want[600], line[1024];
    if (!getcwd(cwd, sizeof cwd))
        return;
    snprintf(want, sizeof want, " %s/%s ", cwd, dir);
    FILE *f = fopen("/proc/self/mounts", "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, want);
        if (!p)
            continue;
        n++;
        /* type and options, not the (test-dependent) path */
        p += strlen(want);
        p[strcspn(p, "\n")] = 0;
        out("%s: /proc/mounts: %s", label, p);
    }
    if (f)
        fclose(f);
    if (!n)
        out("%s: not in /proc/mounts", label);
}
