//go:build linux

package tools

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A program's processes and memory are held by a cgroup of its own where
// glassbox may make one: RLIMIT_NPROC does not bind root, and an address-
// space rlimit is per process, so only a cgroup counts a command's whole
// tree. cgroup v2 is used where glassbox's own cgroup hands the pids and
// memory controllers to its children (a delegated subtree); otherwise the
// v1 hierarchies of those controllers, where glassbox may write them (as
// root, on a machine that still mounts them: this one, whose v2 hierarchy
// offers only hugetlb). The helper makes the cgroups, puts the confining
// stage in them before it sends the stage its job (so nothing the program
// starts is ever outside), reads their counters when the program ends and
// removes them.

// cgroupPrefix starts the name of every cgroup glassbox makes:
// glassbox-PID-HELPER, PID being the glassbox that started the helper.
const cgroupPrefix = "glassbox-"

// cgroupPlace is where cgroups holding one controller are made: the
// folder of glassbox's own cgroup in the hierarchy holding it.
type cgroupPlace struct {
	parent  string // the folder new cgroups go in
	version int    // 1 or 2
}

// cgroupPlaces are the places for the pids and memory controllers, found
// once: a controller with no usable place is missing from the map.
var cgroupPlaces = sync.OnceValue(findCgroupPlaces)

// findCgroupPlaces reads where this process's cgroups are mounted and
// keeps, for pids and memory, the first place glassbox can make a cgroup
// in (tried with a probe it removes at once): v2 first. glassbox asks it
// for the sandbox line; the helper, which makes a cgroup anyway, tries the
// candidates themselves (newProgramCgroups).
func findCgroupPlaces() map[string]cgroupPlace {
	places := map[string]cgroupPlace{}
	for ctl, candidates := range cgroupCandidates() {
		for _, p := range candidates {
			if probeCgroup(p.parent) == nil {
				places[ctl] = p
				break
			}
		}
	}
	return places
}

// cgroupCandidates are, for pids and memory, the places a cgroup could be
// made in, best first.
func cgroupCandidates() map[string][]cgroupPlace {
	mounts := cgroupMounts()
	own := ownCgroups()
	out := map[string][]cgroupPlace{}
	for _, ctl := range []string{"pids", "memory"} {
		out[ctl] = candidatePlaces(ctl, mounts, own)
	}
	return out
}

// candidatePlaces are the places a controller could be used from: the v2
// hierarchy when glassbox's cgroup there enables it for its children, then
// its v1 hierarchy.
func candidatePlaces(ctl string, mounts []cgroupMount, own map[string]string) []cgroupPlace {
	var out []cgroupPlace
	for _, m := range mounts {
		switch {
		case m.v2:
			dir := filepath.Join(m.dir, own[""])
			if enabled, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); slices.Contains(strings.Fields(string(enabled)), ctl) {
				out = append([]cgroupPlace{{parent: dir, version: 2}}, out...)
			}
		case slices.Contains(m.controllers, ctl):
			out = append(out, cgroupPlace{parent: filepath.Join(m.dir, own[ctl]), version: 1})
		}
	}
	return out
}

// probeCgroup makes and removes a cgroup in parent.
func probeCgroup(parent string) error {
	dir := filepath.Join(parent, fmt.Sprintf("%sprobe-%d", cgroupPrefix, os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return os.Remove(dir)
}

// cgroupMount is one cgroup file system this process sees.
type cgroupMount struct {
	dir         string
	v2          bool
	controllers []string // a v1 hierarchy's controllers
}

// cgroupMounts reads the cgroup file systems from /proc/self/mountinfo.
func cgroupMounts() []cgroupMount {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []cgroupMount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS … - FSTYPE SOURCE SUPEROPTIONS
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 || fields[3] != "/" {
			continue
		}
		switch tail[0] {
		case "cgroup2":
			out = append(out, cgroupMount{dir: fields[4], v2: true})
		case "cgroup":
			out = append(out, cgroupMount{dir: fields[4], controllers: strings.Split(tail[2], ",")})
		}
	}
	return out
}

// ownCgroups reads this process's cgroup in each hierarchy from
// /proc/self/cgroup: controller → path ("" is the v2 hierarchy's).
func ownCgroups() map[string]string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// limitsHeld says which cgroup holds the processes and the memory, as the
// sandbox line names it: "cgroup v1 pids.max", "cgroup v2 memory.max".
func limitsHeld() (pids, memory string) {
	places := cgroupPlaces()
	if p, ok := places["pids"]; ok {
		pids = fmt.Sprintf("cgroup v%d pids.max", p.version)
	}
	if p, ok := places["memory"]; ok {
		memory = fmt.Sprintf("cgroup v%d memory.%s", p.version, map[int]string{1: "limit_in_bytes", 2: "max"}[p.version])
	}
	return pids, memory
}

// programCgroups are the cgroups one program runs in: one folder per
// controller (v1), or one folder for both (v2).
type programCgroups struct {
	dirs    map[string]string // controller → its folder
	version map[string]int
}

// newProgramCgroups makes the cgroups of the program a helper runs for the
// glassbox whose pid is owner, and writes its limits into them. A
// controller without a place is left out (the line says so); a cgroup
// that cannot be set up is an error: the program is not run less limited
// than the line says.
func newProgramCgroups(l Limits, owner int) (*programCgroups, error) {
	cg := &programCgroups{dirs: map[string]string{}, version: map[string]int{}}
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, owner, os.Getpid())
	for ctl, candidates := range cgroupCandidates() {
		for _, p := range candidates {
			// In v2 both controllers share glassbox's cgroup, and so one folder.
			dir := filepath.Join(p.parent, name)
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				continue // not here: the next place, or none
			}
			cg.dirs[ctl], cg.version[ctl] = dir, p.version
			break
		}
	}
	if err := cg.setLimits(l); err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

// setLimits writes the limits into the cgroups.
func (cg *programCgroups) setLimits(l Limits) error {
	if dir, ok := cg.dirs["pids"]; ok {
		if err := writeCgroup(dir, "pids.max", strconv.Itoa(l.Processes)); err != nil {
			return err
		}
	}
	dir, ok := cg.dirs["memory"]
	if !ok {
		return nil
	}
	bytes := strconv.FormatInt(l.Memory, 10)
	if cg.version["memory"] == 2 {
		if err := writeCgroup(dir, "memory.max", bytes); err != nil {
			return err
		}
		_ = writeCgroup(dir, "memory.swap.max", "0") // absent without swap accounting
		return nil
	}
	if err := writeCgroup(dir, "memory.limit_in_bytes", bytes); err != nil {
		return err
	}
	_ = writeCgroup(dir, "memory.memsw.limit_in_bytes", bytes) // absent without swap accounting
	return nil
}

func writeCgroup(dir, file, value string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
		return fmt.Errorf("setting %s of the program's cgroup: %w", file, err)
	}
	return nil
}

// held says which limits these cgroups hold, for the stage's line.
func (cg *programCgroups) held() heldLimits {
	var h heldLimits
	if cg == nil {
		return h
	}
	if v, ok := cg.version["pids"]; ok {
		h.Pids = fmt.Sprintf("cgroup v%d pids.max", v)
	}
	if v, ok := cg.version["memory"]; ok {
		h.Memory = fmt.Sprintf("cgroup v%d memory.%s", v, map[int]string{1: "limit_in_bytes", 2: "max"}[v])
	}
	return h
}

// join moves the process pid (the confining stage, before it runs
// anything) into every cgroup.
func (cg *programCgroups) join(pid int) error {
	if cg == nil {
		return nil
	}
	for _, dir := range cg.dirs {
		if err := writeCgroup(dir, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// hit names the limit the cgroups' counters say was reached: a fork
// refused at pids.max, a process the memory limit killed.
func (cg *programCgroups) hit(l Limits) string {
	if cg == nil {
		return ""
	}
	if dir, ok := cg.dirs["pids"]; ok && cgroupCounter(dir, "pids.events", "max") > 0 {
		return processLimit(l)
	}
	dir, ok := cg.dirs["memory"]
	if !ok {
		return ""
	}
	file := "memory.events"
	if cg.version["memory"] == 1 {
		file = "memory.oom_control"
	}
	if cgroupCounter(dir, file, "oom_kill") > 0 {
		return memoryLimit(l)
	}
	return ""
}

// cgroupCounter reads the value of key in a flat-keyed cgroup file
// ("max 3").
func cgroupCounter(dir, file, key string) int {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// remove removes the cgroups once their processes are gone (a cgroup
// holding a process that is still exiting cannot go yet: tried for a
// second).
func (cg *programCgroups) remove() {
	if cg == nil {
		return
	}
	deadline := time.Now().Add(time.Second)
	for _, dir := range cg.dirs {
		for {
			err := os.Remove(dir)
			if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// RemoveStaleCgroups removes the cgroups helpers of a glassbox that died
// left behind (a helper killed with SIGKILL cannot remove its own): those
// whose glassbox no longer runs and that hold no process. glassbox's main
// calls it at start, with RemoveStaleCommandFolders.
func RemoveStaleCgroups() int {
	n := 0
	for _, p := range cgroupPlaces() {
		entries, err := os.ReadDir(p.parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			pid, ok := cgroupOwner(e.Name())
			if !ok || !e.IsDir() || pid == os.Getpid() || ownerRuns(pid) {
				continue
			}
			if os.Remove(filepath.Join(p.parent, e.Name())) == nil {
				n++
			}
		}
	}
	return n
}

// cgroupOwner reads the glassbox's pid out of a cgroup's name,
// glassbox-PID-HELPER.
func cgroupOwner(name string) (int, bool) { return ownerPID(name, cgroupPrefix) }
