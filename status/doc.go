// Package status decides the one state a user reads for a session:
// working, idle, waiting (it needs the user), done, failed, disconnected,
// and the transitional starting and closing, each with a reason and the
// time it began.
//
// A Tracker weighs the signals at hand, strongest first: the process's
// own life once it ends (or while it starts or closes), an explicit
// report (sandmux ctl status), the escape sequences the program sends
// (OSC 9 and 777 notifications, OSC 9;4 progress, OSC 133 shell marks,
// BEL), the config's screen rules, and activity (output or CPU). It owns
// that precedence, the debounce that keeps a state from flickering, the
// reports' time to live and the rules' hold.
//
// It reads no screen, runs no timer and starts no goroutine: callers feed
// it signals with their times and ask Next when to look again, so a
// tracker costs nothing while nothing happens. Rules are compiled here
// (Compile) so that a config names a bad one at load.
package status
