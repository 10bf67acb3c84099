/* Name service lookups through nsswitch.conf's "files" service (the
 * image's /etc/passwd and /etc/group): getpwnam/getpwuid and their _r
 * forms, getgrnam/getgrgid with members, enumeration with getpwent and
 * getgrent, getgrouplist, and misses (NULL; ERANGE for a small buffer). */
#include "common.h"
#include <grp.h>
#include <pwd.h>

static void pw(const char *what, struct passwd *p)
{
    if (!p)
        out("%s: none", what);
    else
        out("%s: %s uid %d gid %d gecos '%s' home %s shell %s", what, p->pw_name, (int)p->pw_uid,
            (int)p->pw_gid, p->pw_gecos, p->pw_dir, p->pw_shell);
}

static void gr(const char *what, struct group *g)
{
    if (!g) {
        out("%s: none", what);
        return;
    }
    char mem[256] = "";
    for (char **m = g->gr_mem; *m; m++) {
        strcat(mem, *m);
        strcat(mem, m[1] ? "," : "");
    }
    out("%s: %s gid %d members [%s]", what, g->gr_name, (int)g->gr_gid, mem);
}

int main(void)
{
    pw("getpwnam root", getpwnam("root"));
    pw("getpwnam kevlar", getpwnam("kevlar"));
    pw("getpwuid 65534", getpwuid(65534));
    pw("getpwnam missing", getpwnam("nosuchuser"));
    pw("getpwuid 4242", getpwuid(4242));
    gr("getgrnam wheel", getgrnam("wheel"));
    gr("getgrgid 100", getgrgid(100));
    gr("getgrnam missing", getgrnam("nosuchgroup"));

    struct passwd pwd, *res;
    char buf[1024];
    int r = getpwnam_r("daemon", &pwd, buf, sizeof buf, &res);
    out("getpwnam_r daemon: rc %s", errname(r));
    pw("  result", res);
    r = getpwnam_r("daemon", &pwd, buf, 8, &res);
    out("getpwnam_r small buffer: rc %s result %s", errname(r), res ? "set" : "NULL");
    r = getpwnam_r("ghost", &pwd, buf, sizeof buf, &res);
    out("getpwnam_r missing: rc %s result %s", errname(r), res ? "set" : "NULL");

    setpwent();
    struct passwd *p;
    int n = 0;
    while ((p = getpwent()))
        out("getpwent %d: %s", n++, p->pw_name);
    endpwent();
    setgrent();
    struct group *g;
    n = 0;
    while ((g = getgrent()))
        out("getgrent %d: %s", n++, g->gr_name);
    endgrent();

    gid_t groups[16];
    int ng = 16;
    r = getgrouplist("kevlar", 1000, groups, &ng);
    out("getgrouplist kevlar: rc %d", r);
    for (int i = 0; i < ng; i++)
        out("  group %d", (int)groups[i]);
    ng = 1;
    r = getgrouplist("kevlar", 1000, groups, &ng);
    out("getgrouplist small: rc %d needs %d", r, ng);
    return 0;
}
