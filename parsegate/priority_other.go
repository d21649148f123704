//go:build !linux

package parsegate

// lowerPriority does nothing where a thread's priority is not its own.
func lowerPriority() {}
