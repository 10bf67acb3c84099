//! fanotify's file-handle info records (`struct fanotify_event_info_fid`)
//! for groups made with FAN_REPORT_FID, FAN_REPORT_DIR_FID and
//! FAN_REPORT_NAME, as Linux 6.1's fanotify_alloc_event and
//! copy_info_records_to_user lay them out.

use alloc::sync::Arc;
use alloc::vec::Vec;

use kevlar_vfs::{FileType, Inode};

use super::fanotify::Entry;
use super::fanotify_abi::*;

// Info record types (FAN_EVENT_INFO_TYPE_*).
const INFO_FID: u8 = 1;
const INFO_DFID_NAME: u8 = 2;
const INFO_DFID: u8 = 3;
const INFO_OLD_DFID_NAME: u8 = 10;
const INFO_NEW_DFID_NAME: u8 = 12;

/// Appends a `struct fanotify_event_info_fid` record for `node` (with
/// `name`, NUL-terminated, for the DFID_NAME type), padded to 4 bytes.
/// `fsid` is the file system's, as statfs reports it.
fn push_fid(out: &mut Vec<u8>, fsid: u64, kind: u8, node: &Arc<dyn Inode>, path: &[u8], name: Option<&[u8]>) {
    let Ok(handle) = crate::fs::fhandle::encode(node, path) else { return };
    let name_len = name.map_or(0, |n| n.len() + 1);
    let len = (4 + 8 + 8 + handle.bytes.len() + name_len).next_multiple_of(4);
    let start = out.len();
    out.push(kind);
    out.push(0);
    out.extend_from_slice(&(len as u16).to_le_bytes());
    out.extend_from_slice(&fsid.to_le_bytes());
    out.extend_from_slice(&(handle.bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&handle.kind.to_le_bytes());
    out.extend_from_slice(&handle.bytes);
    if let Some(name) = name {
        out.extend_from_slice(name);
        out.push(0);
    }
    out.resize(start + len, 0);
}

/// The info records a file-handle group gets for an event (Linux's
/// fanotify_alloc_event and copy_info_records_to_user).
pub(super) fn fid_records(fsid: u64, fid_mode: u32, mask: u32, node: &Arc<dyn Inode>, path: &[u8], entry: Option<&Entry>, parent: Option<&(Arc<dyn Inode>, Vec<u8>, Vec<u8>)>, sides: (bool, bool)) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(Entry { new: Some((new_dir, new_dir_path, new_name)), name, child, .. }) = entry {
        // FAN_RENAME (the group reports names): the old directory and
        // name, the new ones, then the child with FAN_REPORT_TARGET_FID.
        if sides.0 {
            push_fid(&mut out, fsid, INFO_OLD_DFID_NAME, node, path, Some(name));
        }
        if sides.1 {
            push_fid(&mut out, fsid, INFO_NEW_DFID_NAME, new_dir, new_dir_path, Some(new_name));
        }
        if fid_mode & FAN_REPORT_FID != 0 && fid_mode & FAN_REPORT_TARGET_FID != 0 {
            if let Some(child) = child {
                push_fid(&mut out, fsid, INFO_FID, child, b"", None);
            }
        }
        return out;
    }
    let ondir = mask & FAN_ONDIR != 0;
    if fid_mode & FAN_REPORT_DIR_FID == 0 {
        // The object: the directory for entry events.
        push_fid(&mut out, fsid, INFO_FID, node, path, None);
        return out;
    }
    let name_mode = fid_mode & FAN_REPORT_NAME != 0;
    if let Some(entry) = entry {
        let child = if fid_mode & FAN_REPORT_FID != 0 && fid_mode & FAN_REPORT_TARGET_FID != 0 { entry.child.clone() } else { None };
        if name_mode || child.is_some() {
            if name_mode {
                push_fid(&mut out, fsid, INFO_DFID_NAME, node, path, Some(entry.name));
            } else {
                push_fid(&mut out, fsid, INFO_DFID, node, path, None);
            }
            if let Some(child) = &child {
                push_fid(&mut out, fsid, INFO_FID, child, b"", None);
            }
        } else {
            push_fid(&mut out, fsid, INFO_DFID, node, path, None);
        }
        return out;
    }
    let node_is_dir = node.file_type() == FileType::Directory;
    if node_is_dir {
        let kind = if fid_mode == FAN_REPORT_FID { INFO_FID } else if name_mode { INFO_DFID_NAME } else { INFO_DFID };
        push_fid(&mut out, fsid, kind, node, path, (kind == INFO_DFID_NAME).then_some(&b"."[..]));
        return out;
    }
    match parent {
        Some((dir, dir_path, name)) => {
            let child = fid_mode & FAN_REPORT_FID != 0;
            if name_mode {
                push_fid(&mut out, fsid, INFO_DFID_NAME, dir, dir_path, Some(name));
            } else if child {
                push_fid(&mut out, fsid, INFO_DFID, dir, dir_path, None);
            } else {
                push_fid(&mut out, fsid, INFO_FID, dir, dir_path, None);
            }
            if child {
                push_fid(&mut out, fsid, INFO_FID, node, path, None);
            }
        }
        None => {
            if fid_mode & FAN_REPORT_FID != 0 {
                push_fid(&mut out, fsid, INFO_FID, node, path, None);
            }
        }
    }
    let _ = ondir;
    out
}

