package all

import (
	"slices"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// The one list is consistent with what its providers are: every name once,
// in the table, and a provider whose workspace the descriptor says is read
// through streams implements providers.Workspace.
func TestProviderRegistry(t *testing.T) {
	table := Table("", func(string) {}, "")
	names := Registry.Names()
	if sorted := slices.Sorted(slices.Values(names)); !slices.Equal(slices.Compact(sorted), table.Names()) || len(names) != len(table) {
		t.Fatalf("registry names %v, table %v: want each name once, each in the table", names, table.Names())
	}
	for _, d := range Registry {
		_, streams := table[d.Name].(providers.Workspace)
		if streams != (d.Workspace == providers.WorkspaceStream) {
			t.Errorf("%s: descriptor says workspace %v, but implements providers.Workspace: %v", d.Name, d.Workspace, streams)
		}
		if (d.CheckOptions == nil) != (d.OptionKeys == nil) {
			t.Errorf("%s: option keys and their check come together", d.Name)
		}
	}
}
