//! File handles (name_to_handle_at/open_by_handle_at): an inode named by
//! its number and generation, found again without a path, as Linux's
//! export operations for ext4 do (`FILEID_INO32_GEN`).

use alloc::sync::Arc;

use kevlar_vfs::{Errno, FileType, Inode};

use crate::layout::{ino, ROOT_INO};
use crate::Ext2Fs;

impl Ext2Fs {
    /// Returns the generation number of inode `ino` (`i_generation`), the
    /// second word of its handle.
    pub fn generation(&self, ino: u32) -> kevlar_vfs::Result<u32> {
        Ok(self.state.lock().read_inode(ino)?.get(ino::GENERATION))
    }

    /// Returns the node for the handle (`ino`, `generation`): the node in
    /// use if any, else the inode read from the disk. ESTALE for a number
    /// outside the table, a reserved inode, a free or deleted inode, or a
    /// generation that differs (0 matches any, as on Linux).
    pub fn node_by_handle(&self, ino: u32, generation: u32) -> kevlar_vfs::Result<Arc<dyn Inode>> {
        let mut st = self.state.lock();
        if ino == 0 || ino > st.geo.inodes_count || (ino < st.geo.first_ino && ino != ROOT_INO) {
            return Err(Errno::ESTALE);
        }
        let inode = st.read_inode(ino).map_err(|_| Errno::ESTALE)?;
        drop(st);
        if generation != 0 && inode.get(ino::GENERATION) != generation {
            return Err(Errno::ESTALE);
        }
        let file_type = FileType::from_mode(u32::from(inode.mode())).ok_or(Errno::ESTALE)?;
        // A deleted inode is found only while something still holds it.
        if inode.links() == 0 && !self.is_held(ino) {
            return Err(Errno::ESTALE);
        }
        Ok(self.node(ino, file_type))
    }
}
