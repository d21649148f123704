// Package web serves the web client: one static page, embedded, and the
// WebSocket it attaches over, so that a browser is one more client of a
// sandmux server, as a terminal or an SSH session is.
//
//	browser ──GET /──────────▶ page.html (static: no data, no secret)
//	        ──/ws, token─────▶ Server.serveSocket: token (401), Origin (403), a slot (503)
//	                             └─▶ stream (an attach.Stream) ──▶ Attacher (server.Server)
//	  page ◀─binary: frames── writer ◀─ queue (4) ◀─ Write ◀─ ui.Terminal (newest frame wins)
//	  page ──text: keys, paste, sizes──▶ reader ─▶ decode ─▶ input bytes, Resizes
//	  page ◀─text: notifications── notifyPage ◀─ control.Hub (a pane enters waiting, done, failed)
//
// It owns the HTTP listener, the page, the message decoder and the key
// table (browser key names to the bytes a terminal sends), the tokens
// (random, kept hashed, expiring, revocable: Tokens), and the bounds of
// each page: its queue, its messages' size, its pings, and how many pages
// are open. It knows no pane and draws nothing itself: the server
// composes each page's view at its size, and a read-only token's page is
// a read-only client, whose keys the server drops (A2).
package web
