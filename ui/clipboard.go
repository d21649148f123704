package ui

// passClipboard passes the pane's latest clipboard write (OSC 52) on to
// the user's terminal, as tmux's set-clipboard does, when the config
// allows it. The screen checked the selection and the base64 text, so
// the sequence written is sandmux's own, never the child's bytes.
func (m *Model) passClipboard(p *pane) {
	c, ok := p.screen.TakeClipboard()
	if !ok || !m.cfg.Clipboard || m.term == nil {
		return
	}
	m.term.Passthrough("\x1b]52;" + c.Selection + ";" + c.Data + "\x07")
}
