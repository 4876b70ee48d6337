//! One sink per search output (see [`super`]): each module holds the configuration of a
//! profile's search (its walk and text rules), what its workers find in one file, and what
//! collects the answer in path order. The surfaces render the answers.

pub mod by_name;
pub mod counted;
pub mod lines;
pub mod lore;
pub mod matches;
pub mod pages;
