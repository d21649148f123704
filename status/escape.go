package status

import "fmt"

// What the escape sequences a program sends say about it. The latest
// sequence replaces the claim of the one before; input to a session that
// waits drops a waiting claim (Tracker.Input).

// Bell: the program rang the bell (BEL), which agents do to ask for input.
func (t *Tracker) Bell() { t.Escape(Waiting, "rang the bell") }

// Notify: an OSC 9 or OSC 777 notification, whose text is the reason.
func (t *Tracker) Notify(text string) {
	if text == "" {
		text = "sent a notification"
	}
	t.Escape(Waiting, text)
}

// Progress is ConEmu's OSC 9;4 report: st 0 removes it, 1 sets percent,
// 2 is an error, 3 is indeterminate, 4 is paused.
func (t *Tracker) Progress(st, percent int) {
	t.cmdDone = false
	switch st {
	case 0:
		if t.claims[FromEscape].progress {
			t.ClearEscape()
		}
		return
	case 1:
		t.Escape(Working, fmt.Sprintf("%d%%", percent))
	case 2:
		t.Escape(Failed, fmt.Sprintf("progress reported an error at %d%%", percent))
	case 4:
		t.Escape(Idle, fmt.Sprintf("progress paused at %d%%", percent))
	default:
		t.Escape(Working, "in progress")
	}
	t.claims[FromEscape].progress = true
}

// Prompt is OSC 133 A or B: the shell shows its prompt. After a command
// ended (D) the prompt keeps that outcome; before any, the shell is idle.
func (t *Tracker) Prompt() {
	if !t.cmdDone {
		t.Escape(Idle, "at the prompt")
	}
}

// CommandStart is OSC 133 C: the shell runs a command.
func (t *Tracker) CommandStart() {
	t.cmdDone = false
	t.Escape(Working, "running a command")
}

// CommandDone is OSC 133 D, with the command's exit code when known.
func (t *Tracker) CommandDone(code int, known bool) {
	t.cmdDone = true
	switch {
	case !known:
		t.Escape(Done, "the command ended")
	case code == 0:
		t.Escape(Done, "the command exited 0")
	default:
		t.Escape(Failed, fmt.Sprintf("the command exited %d", code))
	}
}
