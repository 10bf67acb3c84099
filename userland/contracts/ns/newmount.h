/* The new mount API's numbers and structure (musl has no wrappers). */
#ifndef NEWMOUNT_H
#define NEWMOUNT_H
#include <stdint.h>
#define NR_open_tree 428
#define NR_move_mount 429
#define NR_fsopen 430
#define NR_fsconfig 431
#define NR_fsmount 432
#define NR_mount_setattr 442
#define OPEN_TREE_CLONE 1
#define OPEN_TREE_CLOEXEC 02000000
#define MOVE_MOUNT_F_EMPTY_PATH 0x4
#define MOVE_MOUNT_T_EMPTY_PATH 0x40
#define MOVE_MOUNT_BENEATH 0x200
#define FSOPEN_CLOEXEC 1
#define FSMOUNT_CLOEXEC 1
#define FSCONFIG_SET_FLAG 0
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_SET_BINARY 2
#define FSCONFIG_CMD_CREATE 6
#define FSCONFIG_CMD_RECONFIGURE 7
#define MOUNT_ATTR_RDONLY 0x1
#define MOUNT_ATTR_NOSUID 0x2
#define MOUNT_ATTR_NODEV 0x4
#define MOUNT_ATTR_NOEXEC 0x8
#define MOUNT_ATTR__ATIME 0x70
#define MOUNT_ATTR_RELATIME 0
#define MOUNT_ATTR_NOATIME 0x10
#define MOUNT_ATTR_STRICTATIME 0x20
#define MOUNT_ATTR_IDMAP 0x100000
#define MOUNT_ATTR_NOSYMFOLLOW 0x200000
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
struct mount_attr_v0 {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#endif
