package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/device"
)

// The web client end to end: a real server, the URL ctl token new
// prints, and Debian's chromium, headless, driven by chromedp. Chromium
// under load is slow: every wait is bounded generously, and nothing is
// timed.

// browserWait bounds each wait on the page; a bound on a failure only.
const browserWait = 90 * time.Second

// webServe starts a server of three panes that serves the web client and
// returns it with the web client's base URL.
func webServe(t *testing.T) (*served, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sandmux.toml")
	var b strings.Builder
	b.WriteString("[server]\nhttp_listen = \"127.0.0.1:0\"\n")
	for _, name := range []string{"one", "two", "three"} {
		fmt.Fprintf(&b, "\n[[sandbox]]\nname = %q\ncommand = %q\n", name, fmt.Sprintf(`printf 'hello-%s \033[1;32mready\033[0m\n'; exec sh`, name))
	}
	writeConfig(t, cfg, b.String())
	srv := startServe(t, sandmuxBin, serverSocket(dir), isolatedEnv(dir), "-c", cfg)
	// A page's failure is the server's story as much as the browser's:
	// why it ended an attach is in its log only.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", srv.logText())
		}
	})
	base := srv.waitLog("the web client's address", regexp.MustCompile(`serving the web client on (http://127\.0\.0\.1:\d+)$`))[1]
	return srv, base
}

// browser starts chromium headless for the test and returns a context
// of its first tab; more tabs come from chromedp.NewContext on it.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	need(t, "chromium")
	path, _ := exec.LookPath("chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // chromium refuses to run as root with its sandbox
		chromedp.DisableGPU,
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	// The first action starts the browser, on a context with no timeout:
	// one would stop the browser with it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// inBrowser runs actions within browserWait and fails the test if they fail.
func inBrowser(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// evalPage evaluates a JavaScript expression on the page.
func evalPage[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitPage waits until the JavaScript condition holds on the page.
func waitPage(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, browserWait+10*time.Second)
	defer cancel()
	var err error
	for {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond,
			// On an interval: a tab in the background gets no animation frames.
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(browserWait)))
		// A page still loading may replace the document the poll ran in:
		// poll the new one.
		if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "Cannot find context") && !strings.Contains(err.Error(), "context was destroyed") {
			break
		}
	}
	if err != nil {
		diag, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		shown, _ := chromedp.Run(diag, chromedp.Evaluate[string](pageTextJS)) // Best effort: a diagnosis.
		t.Fatalf("wait for %s: %v\nthe page shows:\n%s", what, err, shown)
	}
}

// pageTextJS is the page's screen as text, one row a line, and its state.
const pageTextJS = `[...document.querySelectorAll("#screen > div")].map(d => d.textContent).join("\n") + "\n[" + sandmux.conn + ": " + sandmux.reason + "]"`

// screenHas is a condition: the page's screen shows text.
func screenHas(text string) string {
	return fmt.Sprintf(`document.getElementById("screen").textContent.includes(%q)`, text)
}

// tokenURL asks the server for a token (ARGS are token new's flags).
func tokenURL(t *testing.T, srv *served, args ...string) string {
	t.Helper()
	url := strings.TrimSpace(srv.ctl(append([]string{"token", "new"}, args...)...))
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/#t=[A-Za-z0-9_-]{32,}$`).MatchString(url) {
		t.Fatalf("token new printed %q, not a URL with the token in its fragment", url)
	}
	return url
}

// TestWebClient: the page shows the panes, types into them, follows the
// window's size; a screenshot of the three-pane grid is written to
// $SANDMUX_SCREENSHOT when it is set.
func TestWebClient(t *testing.T) {
	srv, _ := webServe(t)
	ctx := browser(t, 1280, 720)
	url := tokenURL(t, srv, "--name", "e2e")
	inBrowser(t, ctx, "open the page", chromedp.Navigate(url))
	waitPage(t, ctx, "the panes' output", screenHas("hello-one")+"&&"+screenHas("hello-two")+"&&"+screenHas("hello-three"))
	srv.waitLog("the page's attach", regexp.MustCompile(`web: attached web "e2e" \(token [0-9a-f]+\) from 127\.0\.0\.1:\d+ \(read-write, \d+x\d+\)`))
	if fragment := evalPage[string](t, ctx, `location.hash`); fragment != "" {
		t.Errorf("the address bar keeps the token: %q", fragment)
	}
	if path := os.Getenv("SANDMUX_SCREENSHOT"); path != "" {
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()) // the viewport: a full-page shot would resize the page first
		if err != nil {
			t.Fatalf("take the screenshot: %v", err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	inBrowser(t, ctx, "type", chromedp.Focus(chromedp.CSS("#kbd")), chromedp.SendKeys(chromedp.CSS("#kbd"), "echo web-ok\r"))
	srv.waitScreen("1", "\nweb-ok")

	type size struct{ Cols, Rows int }
	before := evalPage[size](t, ctx, `({cols: sandmux.cols, rows: sandmux.rows})`)
	inBrowser(t, ctx, "resize the window", chromedp.EmulateViewport(700, 900))
	waitPage(t, ctx, "the page's new size", fmt.Sprintf(`sandmux.cols < %d && sandmux.rows > %d`, before.Cols, before.Rows))
	after := evalPage[size](t, ctx, `({cols: sandmux.cols, rows: sandmux.rows})`)
	// The server composes the view at the new size: its rows are as many
	// as the page's, and the panes' titles span the new width.
	waitPage(t, ctx, "the layout at the new size", fmt.Sprintf(
		`(() => { const rows = [...document.querySelectorAll("#screen > div")].map(d => d.textContent.trimEnd());
		  return rows.length === %d && rows.some(r => r.length > %d && r.length <= %d) && %s && %s; })()`,
		after.Rows, after.Cols-3, after.Cols, screenHas("hello-one"), screenHas("hello-three")))

	// A pane entering waiting reaches the page in the words of the
	// terminal's notification.
	srv.ctl("status", "1", "waiting", "--reason", "needs you")
	waitPage(t, ctx, "the notification", `sandmux.lastNotice === "one is waiting: needs you"`)

	// A phone gets a row of keys: the prefix, then ?, opens help; Esc
	// closes it.
	inBrowser(t, ctx, "become a phone", chromedp.Emulate(device.Pixel5), chromedp.Reload())
	waitPage(t, ctx, "the phone's page", `getComputedStyle(document.getElementById("keys")).display === "flex" && sandmux.conn === "open" && `+screenHas("hello-one"))
	inBrowser(t, ctx, "press prefix ?", chromedp.Click(chromedp.CSS(`#keys [data-k="prefix"]`)), chromedp.SendKeys(chromedp.CSS("#kbd"), "?"))
	waitPage(t, ctx, "help on the phone", screenHas("show or hide this help"))
	inBrowser(t, ctx, "press Esc", chromedp.Click(chromedp.CSS(`#keys [data-k="Escape"]`)))
	waitPage(t, ctx, "help closed", "!"+screenHas("show or hide this help"))
}

// TestWebClientReadOnlyAndRevoked: a read-only token's page watches and
// its typing changes nothing; revoking a token closes its open page at
// once; /ws refuses a request without a valid token with 401.
func TestWebClientReadOnlyAndRevoked(t *testing.T) {
	srv, base := webServe(t)
	ctx := browser(t, 1000, 700)
	inBrowser(t, ctx, "open the read-only page", chromedp.Navigate(tokenURL(t, srv, "--read-only", "--name", "watcher")))
	waitPage(t, ctx, "the read-only page", screenHas("hello-one")+"&&"+screenHas("READ-ONLY"))
	srv.waitLog("the read-only attach", regexp.MustCompile(`web: attached web "watcher" .*\(read-only, `))
	inBrowser(t, ctx, "type on the read-only page", chromedp.Focus(chromedp.CSS("#kbd")),
		chromedp.SendKeys(chromedp.CSS("#kbd"), "echo ro-typed\r"),
		// Then prefix ?, which a read-only client may: once help shows,
		// every key before it went through the server's input.
		chromedp.KeyEvent("b", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.SendKeys(chromedp.CSS("#kbd"), "?"))
	waitPage(t, ctx, "help on the read-only page", screenHas("show or hide this help"))
	for _, pane := range []string{"1", "2", "3"} {
		if scr := srv.ctl("screen", pane); strings.Contains(scr, "ro-typed") {
			t.Errorf("a read-only page typed into pane %s:\n%s", pane, scr)
		}
	}

	// The same tab opens a read-write page of another token, which is
	// then revoked (a page of one token staying open while another's is
	// revoked is the web package's test).
	tab := ctx
	// about:blank first: from the page itself, only the URL's fragment would
	// change, which reloads the page under the test's feet.
	inBrowser(t, tab, "open a second page", chromedp.Navigate("about:blank"), chromedp.Navigate(tokenURL(t, srv, "--name", "doomed")))
	waitPage(t, tab, "the second page", screenHas("hello-two")+`&& sandmux.conn === "open" && !`+screenHas("READ-ONLY"))
	id := tokenID(t, srv, "doomed")
	srv.waitLog("the read-only page's end", regexp.MustCompile(`web: detached web "watcher" `))
	if ls := srv.ctl("token", "ls"); !regexp.MustCompile(id + `\s+doomed\s+read-write\s+.*\s1\n`).MatchString(ls) {
		t.Errorf("token ls does not count the page open:\n%s", ls)
	}
	srv.ctl("token", "revoke", id)
	waitPage(t, tab, "the revoked page to close", `sandmux.conn === "closed" && sandmux.reason.includes("token revoked") && document.querySelectorAll("#screen > div").length === 0`)
	srv.waitLog("the revoked page's end", regexp.MustCompile(`web: detached web "doomed" .* \(exit 0, token revoked\)`))
	inBrowser(t, tab, "reload the revoked page", chromedp.Reload())
	waitPage(t, tab, "the reloaded page to attach nothing", `sandmux.conn === "closed" && sandmux.reason.includes("no token")`)

	need(t, "curl")
	for _, header := range []string{"", "Sec-WebSocket-Protocol: sandmux.v1, sandmux.token.wrong"} {
		args := []string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Connection: Upgrade", "-H", "Upgrade: websocket",
			"-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="}
		if header != "" {
			args = append(args, "-H", header)
		}
		out, err := exec.Command("curl", append(args, base+"/ws")...).Output()
		if err != nil || string(out) != "401" {
			t.Errorf("curl /ws with %q: %s, %v; want 401", header, out, err)
		}
	}
	srv.waitLog("the refusal", regexp.MustCompile(`web: refused web from 127\.0\.0\.1:\d+: no valid token`))
}

// tokenID is the ID of the token of a name, from ctl token ls.
func tokenID(t *testing.T, srv *served, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^([0-9a-f]+)\s+` + regexp.QuoteMeta(name) + `\s`).FindStringSubmatch(srv.ctl("token", "ls"))
	if m == nil {
		t.Fatalf("token ls lists no %q", name)
	}
	return m[1]
}
