package snapshot

import (
	"archive/tar"
	"path"
	"strings"
)

// Limits bound what a restore or verify accepts. The zero value of a field
// means its default.
type Limits struct {
	// MaxBytes bounds the total size of regular file content (default
	// 4 GiB). It is checked against each member's declared size before any
	// of it is read, and the decompressed stream is capped while it is
	// decompressed, so a bomb stops early.
	MaxBytes int64
	// MaxMembers bounds the number of members of any type (default 200 000).
	MaxMembers int
}

// Default limits.
const (
	DefaultMaxBytes   = 4 << 30
	DefaultMaxMembers = 200_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxMembers <= 0 {
		l.MaxMembers = DefaultMaxMembers
	}
	return l
}

// streamCap is how many decompressed bytes an archive within l may take:
// the content plus generous room for headers (a header block, a PAX block
// and its records per member) and trailing padding.
func (l Limits) streamCap() int64 {
	return l.MaxBytes + int64(l.MaxMembers)*4*512 + 4<<20
}

const (
	maxNameLen     = 4096     // PATH_MAX: the kernel refuses longer paths anyway
	maxNameBytes   = 64 << 20 // all names together, so the tree model stays small
	maxLinkSteps   = 4096     // work allowed to resolve one symlink (chains, loops)
	maxLinkFollows = 40       // the kernel's ELOOP limit
)

type kind uint8

const (
	kindDir kind = iota + 1
	kindFile
	kindSymlink
)

// node is what the checker remembers about one path: enough to refuse
// duplicates, members under a symlink, and symlinks that escape.
type node struct {
	kind     kind
	implicit bool   // a directory created for a member's parent, not named itself
	target   string // symlink target
}

// checker applies the member rules of W5 to a stream of tar headers and
// builds a model of the tree they describe. It performs no I/O, so verify
// and restore share every rule.
type checker struct {
	lim       Limits
	nodes     map[string]*node
	links     []string // symlink names, for the final resolution check
	members   int
	files     int64
	dirs      int64
	bytes     int64
	nameBytes int64
}

func newChecker(l Limits) *checker {
	return &checker{lim: l.withDefaults(), nodes: map[string]*node{}}
}

// member is an admitted header: its clean name and the directories that
// must be created implicitly, parents first, before it.
type member struct {
	name     string // clean, relative, "." for the root
	implicit []string
}

// admit checks one header. The returned error is a *MemberError naming it.
func (c *checker) admit(h *tar.Header) (member, error) {
	raw := h.Name
	if err := c.count(h); err != nil {
		return member{}, err
	}
	name, err := cleanName(raw)
	if err != nil {
		return member{}, err
	}
	if err := checkType(h); err != nil {
		return member{}, err
	}
	if name == "." {
		if h.Typeflag != tar.TypeDir {
			return member{}, refuse(raw, "the archive root must be a directory")
		}
		return member{name: "."}, c.addRoot(raw)
	}
	if h.Size < 0 || (h.Typeflag == tar.TypeReg && h.Size > c.lim.MaxBytes-c.bytes) {
		return member{}, overLimit(raw, "declared size %d bytes exceeds the %d bytes left of the %d-byte limit; raise the byte limit if you trust this archive",
			h.Size, c.lim.MaxBytes-c.bytes, c.lim.MaxBytes)
	}
	implicit, err := c.parents(raw, name)
	if err != nil {
		return member{}, err
	}
	if err := c.add(raw, name, h); err != nil {
		return member{}, err
	}
	return member{name: name, implicit: implicit}, nil
}

// count charges h to the member limit and to the names' total size.
func (c *checker) count(h *tar.Header) error {
	c.members++
	if c.members > c.lim.MaxMembers {
		return overLimit(h.Name, "more than %d members; raise the member limit if you trust this archive", c.lim.MaxMembers)
	}
	c.nameBytes += int64(len(h.Name) + len(h.Linkname))
	if c.nameBytes > maxNameBytes {
		return overLimit(h.Name, "names take more than %d bytes in total", maxNameBytes)
	}
	return nil
}

// checkType refuses every member type but files, directories and symlinks.
func checkType(h *tar.Header) error {
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeDir, tar.TypeSymlink:
		return nil
	case tar.TypeLink:
		return refuse(h.Name, "hard link to %q is not allowed; save the workspace with hard links dereferenced", h.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return refuse(h.Name, "device nodes are not allowed")
	case tar.TypeFifo:
		return refuse(h.Name, "FIFOs are not allowed")
	default:
		return refuse(h.Name, "member type %q is not supported (only files, directories and symlinks)", string(rune(h.Typeflag)))
	}
}

// add records the member name, other than the root, in the tree model. A
// directory may name one that an earlier member created implicitly.
func (c *checker) add(raw, name string, h *tar.Header) error {
	if old, ok := c.nodes[name]; ok {
		if !(old.implicit && h.Typeflag == tar.TypeDir) {
			return refuse(raw, "duplicate name: %q appears more than once", name)
		}
		old.implicit = false
		c.dirs++
		return nil
	}
	n := &node{}
	switch h.Typeflag {
	case tar.TypeDir:
		n.kind = kindDir
		c.dirs++
	case tar.TypeReg:
		n.kind = kindFile
		c.files++
		c.bytes += h.Size
	case tar.TypeSymlink:
		if err := checkLinkTarget(raw, name, h.Linkname); err != nil {
			return err
		}
		n.kind, n.target = kindSymlink, h.Linkname
		c.links = append(c.links, name)
	}
	c.nodes[name] = n
	return nil
}

func (c *checker) addRoot(raw string) error {
	if n, ok := c.nodes["."]; ok && !n.implicit {
		return refuse(raw, "duplicate name: the root appears more than once")
	}
	c.nodes["."] = &node{kind: kindDir}
	return nil
}

// parents checks every ancestor of name: each must be a directory (never a
// symlink or a file). Missing ones become implicit directories.
func (c *checker) parents(raw, name string) ([]string, error) {
	var implicit []string
	for i := 0; i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		p := name[:i]
		n, ok := c.nodes[p]
		switch {
		case !ok:
			c.nodes[p] = &node{kind: kindDir, implicit: true}
			implicit = append(implicit, p)
		case n.kind == kindSymlink:
			return nil, refuse(raw, "it lies under the symlink %q", p)
		case n.kind == kindFile:
			return nil, refuse(raw, "its parent %q is a file", p)
		}
	}
	return implicit, nil
}

// cleanName turns a tar name into a clean relative path, refusing absolute
// names and any ".." component.
func cleanName(raw string) (string, error) {
	switch {
	case raw == "":
		return "", refuse(raw, "empty name")
	case len(raw) > maxNameLen:
		return "", refuse(raw[:64]+"...", "name longer than %d bytes", maxNameLen)
	case strings.IndexByte(raw, 0) >= 0:
		return "", refuse(raw, "name contains a NUL byte")
	case strings.HasPrefix(raw, "/"):
		return "", refuse(raw, "absolute name; archives must be rooted at \".\"")
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", refuse(raw, "name contains \"..\"")
		}
	}
	return path.Clean(raw), nil
}

// checkLinkTarget refuses symlinks whose target is absolute or leaves the
// root when read lexically from the link's directory. Chains through other
// symlinks are checked by finish, once the whole tree is known.
func checkLinkTarget(raw, name, target string) error {
	switch {
	case target == "":
		return refuse(raw, "symlink with an empty target")
	case strings.IndexByte(target, 0) >= 0:
		return refuse(raw, "symlink target contains a NUL byte")
	case strings.HasPrefix(target, "/"):
		return refuse(raw, "symlink to the absolute path %q points outside the workspace", target)
	}
	if escapes(path.Join(path.Dir(name), target)) {
		return refuse(raw, "symlink to %q points outside the workspace", target)
	}
	return nil
}

func escapes(p string) bool { return p == ".." || strings.HasPrefix(p, "../") }

// finish checks, once every member is known, that no symlink resolves
// outside the root by going through other symlinks (a/l -> "..", then
// b -> "a/l/../x" looks harmless on its own).
func (c *checker) finish() error {
	for _, name := range c.links {
		steps := 0
		target := c.nodes[name].target
		_, out, err := c.walk(splitDir(path.Dir(name)), target, 0, &steps)
		switch {
		case err == errLoop:
			// The kernel fails such a lookup with ELOOP: it cannot escape.
		case err != nil:
			return refuse(name, "symlink to %q: %v", target, err)
		case out:
			return refuse(name, "symlink to %q resolves outside the workspace through other symlinks", target)
		}
	}
	return nil
}

type resolveError string

func (e resolveError) Error() string { return string(e) }

const (
	errLoop    = resolveError("symlink loop")
	errComplex = resolveError("symlink chain too complex to check")
)

// walk resolves target from the directory cur the way the kernel would,
// following the symlinks the archive creates, and returns where it leads
// and whether it climbed above the root on the way. Components that do not
// exist are taken as directories, which can only make the verdict stricter.
func (c *checker) walk(cur []string, target string, follows int, steps *int) ([]string, bool, error) {
	if strings.HasPrefix(target, "/") {
		return nil, true, nil
	}
	res := append([]string(nil), cur...)
	for _, part := range strings.Split(target, "/") {
		if *steps++; *steps > maxLinkSteps {
			return nil, false, errComplex
		}
		switch part {
		case "", ".":
			continue
		case "..":
			if len(res) == 0 {
				return nil, true, nil
			}
			res = res[:len(res)-1]
			continue
		}
		res = append(res, part)
		n := c.nodes[strings.Join(res, "/")]
		if n == nil || n.kind != kindSymlink {
			continue
		}
		if follows >= maxLinkFollows {
			return nil, false, errLoop
		}
		r, out, err := c.walk(res[:len(res)-1], n.target, follows+1, steps)
		if out || err != nil {
			return nil, out, err
		}
		res = r
	}
	return res, false, nil
}

func splitDir(d string) []string {
	if d == "." || d == "" {
		return nil
	}
	return strings.Split(d, "/")
}

// maxTrailing bounds what may follow the end of a tar archive (GNU tar pads
// to a 10 KiB record; anything far beyond that is not padding).
const maxTrailing = 1 << 20
