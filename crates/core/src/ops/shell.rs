//! Running a shell command with a timeout, a process-group kill, and an output cap.
