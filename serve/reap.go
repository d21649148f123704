package serve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/daemon"
	"github.com/sandmux/sandmux/providers/docker"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/reap"
)

// reapTimeout bounds clearing what dead servers left, before this one
// starts its panes: killing cgroups and removing containers.
const reapTimeout = 60 * time.Second

// claimSocket records this server for whoever starts at socket after it,
// and clears, saying so in the log, what servers of that socket left when
// they died without their teardown (contract A5). It returns this
// server's instance, which labels the containers it creates, and its
// claim to release once its teardown is done (nil when it could not be
// recorded, which is logged: the server runs all the same).
func claimSocket(ctx context.Context, cfg *config.Config, socket string, logger *log.Logger) (string, *reap.Claim) {
	rec := reap.Record{Socket: socket, PID: os.Getpid(), Instance: reap.NewInstance(),
		Cgroups: local.CgroupParent(), Engines: dockerEngines(cfg)}
	state, err := daemon.StateDir()
	if err != nil {
		logger.Print(err)
		return rec.Instance, nil
	}
	claim, dead, err := reap.Register(filepath.Join(state, "servers"), rec)
	if err != nil {
		logger.Print(err)
		return rec.Instance, nil
	}
	rctx, cancel := context.WithTimeout(ctx, reapTimeout)
	defer cancel()
	lines, err := reap.Reap(rctx, dead, reapCgroups, reapContainers)
	for _, line := range lines {
		logger.Print(line)
	}
	if err != nil {
		logger.Print(err)
	}
	return rec.Instance, claim
}

// dockerEngines are the engines the config's sandboxes create containers
// on.
func dockerEngines(cfg *config.Config) []string {
	var hosts []string
	for _, sb := range cfg.Sandboxes {
		if sb.Provider != docker.Descriptor.Name {
			continue
		}
		if host, ok := docker.CreatesOn(sb.Options); ok && !slices.Contains(hosts, host) {
			hosts = append(hosts, host)
		}
	}
	return hosts
}

// reapCgroups kills and removes a dead server's pane cgroups.
func reapCgroups(_ context.Context, dead reap.Record) ([]string, error) {
	if dead.Cgroups == "" {
		return nil, nil
	}
	n, procs, err := local.ReapCgroups(dead.Cgroups, dead.PID)
	if n == 0 {
		return nil, err
	}
	return []string{fmt.Sprintf("%s (%s killed)", plural(n, "pane cgroup"), plural(procs, "process"))}, err
}

// reapContainers removes a dead server's containers on every engine it
// used.
func reapContainers(ctx context.Context, dead reap.Record) ([]string, error) {
	var what []string
	var errs []error
	for _, host := range dead.Engines {
		names, err := docker.Reap(ctx, host, dead.Instance)
		for _, n := range names {
			what = append(what, "container "+n)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return what, errors.Join(errs...)
}

// plural is n things in words: "1 pane cgroup", "2 processes".
func plural(n int, thing string) string {
	switch {
	case n == 1:
		return "1 " + thing
	case strings.HasSuffix(thing, "s"):
		return fmt.Sprintf("%d %ses", n, thing)
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
