package docker

import (
	"context"
	"fmt"
	"strings"

	"github.com/moby/moby/client"
)

// CreatesOn reports the engine a sandbox with these options creates its
// container on, and whether it creates one at all (an image, not an
// existing container): where a server that dies may leave one.
func CreatesOn(options map[string]any) (host string, creates bool) {
	opts, err := ParseOptions(options)
	if err != nil || opts.Image == "" {
		return "", false
	}
	return engineHost(opts.Host), true
}

// Reap force-removes every container on the engine at host that carries
// ServerLabel=server: the containers a server that died without its
// teardown left running (contract A5). It returns their names. Only that
// server's containers match: the label's value is unique to it.
func Reap(ctx context.Context, host, server string) ([]string, error) {
	if server == "" {
		return nil, nil
	}
	e, err := connect(ctx, host, DefaultConnectTimeout)
	if err != nil {
		return nil, err
	}
	defer e.close()
	list, err := e.ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", ServerLabel+"="+server)})
	if err != nil {
		return nil, fmt.Errorf("list the containers of server %s on %s: %w", server, host, err)
	}
	var names []string
	var errs []error
	for _, c := range list.Items {
		name := c.ID[:min(12, len(c.ID))]
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		if err := removeContainer(ctx, e, c.ID, ""); err != nil {
			errs = append(errs, err)
			continue
		}
		names = append(names, name)
	}
	if len(errs) > 0 {
		return names, fmt.Errorf("%d of the containers of server %s on %s: %w", len(errs), server, host, errs[0])
	}
	return names, nil
}
