//! Physical memory, the kernel heap and kernel stacks.

pub mod addr;
pub mod heap;
pub mod pmm;
pub mod stacks;

pub use addr::{PhysAddr, PAGE_SIZE};
