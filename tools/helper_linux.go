//go:build linux

package tools

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// quotaPoll is how often the helper measures a workspace with a quota
// while its program runs.
const quotaPoll = 250 * time.Millisecond

// sandboxHelperMain is the helper. Unconfined itself, it reads its job
// from jobFD, becomes the subreaper of everything the program starts,
// makes the program's cgroups, starts the confining stage (the init of the
// program's PID namespace, which confines itself and starts the program),
// watches the workspace's quota, and when the program ends — or glassbox
// asks, or glassbox dies, or the quota is reached — kills every process it
// left behind, wherever it went. Its reports go to fd 3: one when the
// program runs confined (or could not), one when it is over; glassbox
// reads them.
func sandboxHelperMain() int {
	// The confining stage's parent-death signal fires when the thread
	// that started it ends, not the process: start it from a thread that
	// lives as long as the helper.
	runtime.LockOSThread()
	// The status pipe is the helper's alone: the program must not hold it
	// (a background job would keep glassbox waiting for the report).
	syscall.CloseOnExec(3)
	h := helper{status: os.NewFile(3, "status"), parent: os.Getppid()}
	job, err := readJob()
	if err != nil {
		return h.report(helperStatus{Error: err.Error()})
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return h.report(helperStatus{Error: "cannot become the program's subreaper: " + err.Error()})
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	cg, err := newProgramCgroups(job.Limits, h.parent)
	if err != nil {
		return h.report(helperStatus{Error: "cannot limit the program: " + err.Error()})
	}
	defer cg.remove()
	job.Held = cg.held()
	stage, conf, err := h.startStage(job, cg)
	if err != nil {
		return h.report(helperStatus{Error: "cannot start the sandbox: " + err.Error()})
	}
	h.say(helperStatus{Started: conf.Error == "", Sandbox: conf.Sandbox, Error: conf.Error})
	s := h.wait(stage, job, stop)
	s.Sandbox = conf.Sandbox
	if s.Limit == "" {
		s.Limit = cg.hit(job.Limits)
	}
	if conf.Error != "" {
		s.Error = conf.Error
	}
	if s.Cancelled && filepath.IsAbs(job.Temp) && strings.HasPrefix(filepath.Base(job.Temp), commandTempPrefix) {
		// The program is stopped and its folder is of no use to anyone.
		// glassbox removes it too when it was glassbox that stopped the
		// program; when the stop was glassbox's death, nobody else will.
		// Which one it was cannot be told here: the parent-death signal
		// comes when the thread that started the helper exits, and while
		// glassbox's other threads are still exiting getppid names it.
		os.RemoveAll(job.Temp)
	}
	return h.report(s)
}

// helper is the helper's side of its status pipe.
type helper struct {
	status *os.File
	parent int // glassbox
}

func (h helper) say(s helperStatus) {
	if h.status != nil {
		h.status.Write(s.encode())
	}
}

// report says s as the last word and closes the pipe.
func (h helper) report(s helperStatus) int {
	h.say(s)
	if h.status != nil {
		h.status.Close()
	}
	return 0
}

// startStage starts the confining stage in namespaces of its own where it
// can be made, and is told so. If it cannot use them (a kernel or policy
// that refuses the mounts), it says so before running anything, and runs
// again in the helper's namespaces, its line saying what stays open. It
// returns the stage and its first report.
func (h helper) startStage(job sandboxJob, cg *programCgroups) (confiningStage, helperStatus, error) {
	sys, roErr := privateMountsAttr()
	for attempt := 1; ; attempt++ {
		var (
			stage confiningStage
			err   error
		)
		if roErr == nil {
			job.Mounts = privateMountsFor()
			stage, err = startConfiningStage(sys, job, cg)
		}
		if roErr != nil || err != nil {
			job.Mounts = "shared-mounts"
			stage, err = startConfiningStage(&syscall.SysProcAttr{}, job, cg)
		}
		if err != nil {
			return stage, helperStatus{}, err
		}
		conf := <-stage.confined
		if roErr != nil || attempt > 1 || !conf.NoMounts {
			return stage, conf, nil
		}
		// A stage that could not use its namespaces ends at once.
		<-stage.done
		roErr = errors.New(conf.Error)
	}
}

// wait waits for the stage to end — the program's end, glassbox's stop,
// the workspace's quota — and says how it ended.
func (h helper) wait(stage confiningStage, job sandboxJob, stop <-chan os.Signal) helperStatus {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	over := watchQuota(ctx, job)
	var s helperStatus
	var st *os.ProcessState
	select {
	case st = <-stage.done:
	case <-stop:
		s.Cancelled = true
		killDescendants(os.Getpid()) // the program and everything under it
		st = <-stage.done
	case why := <-over:
		s.Limit = quotaLimit(job.Quota, why)
		killDescendants(os.Getpid())
		st = <-stage.done
	}
	final := <-stage.final
	s.Stopped = final.Stopped + stopDescendants()
	s.Exit = -1
	switch {
	case final.Done:
		s.Exit, s.Signal = final.Exit, final.Signal
	case final.Error != "":
		s.Error = final.Error
	case st != nil:
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			s.Signal = ws.Signal().String()
		}
	}
	if s.Limit == "" {
		s.Limit = limitHit(job.Limits, s.Signal, s.Exit, "")
	}
	if s.Limit == "" && job.Quota.Set() {
		if _, err := workspaceUsage(job.Workspace, job.Quota); err != nil {
			s.Limit = quotaLimit(job.Quota, err.Error())
		}
	}
	return s
}

// watchQuota measures the workspace every quotaPoll while ctx lasts, and
// says why once it is over the job's quota.
func watchQuota(ctx context.Context, job sandboxJob) <-chan string {
	over := make(chan string, 1)
	if !job.Quota.Set() {
		return over
	}
	go func() {
		tick := time.NewTicker(quotaPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if _, err := workspaceUsage(job.Workspace, job.Quota); errors.Is(err, ErrWalkLimit) {
				over <- err.Error()
				return
			}
		}
	}()
	return over
}

// confiningStage is a started confining stage: its end, its first report
// and its last.
type confiningStage struct {
	done     chan *os.ProcessState
	confined chan helperStatus
	final    chan helperStatus
}

// startConfiningStage starts this program as the confining stage for job,
// with sys (its namespaces; job.Mounts tells the stage which it got). The
// stage gets the helper's standard input, output and error. It dies with
// the helper (SIGKILL), and starts from the helper's locked thread. It is
// put in the program's cgroups before its job is sent: until it has the
// job it runs nothing, so nothing the program starts is ever outside them.
func startConfiningStage(sys *syscall.SysProcAttr, job sandboxJob, cg *programCgroups) (confiningStage, error) {
	confR, confW, err := os.Pipe()
	if err != nil {
		return confiningStage{}, err
	}
	jobR, jobW, err := os.Pipe()
	if err != nil {
		closeAll(confR, confW)
		return confiningStage{}, err
	}
	sys.Pdeathsig = syscall.SIGKILL
	proc, err := os.StartProcess("/proc/self/exe", []string{"glassbox", confineArg}, &os.ProcAttr{
		Dir: job.Workspace, Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, confW, jobR}, Sys: sys,
	})
	closeAll(confW, jobR)
	if err == nil {
		if err = cg.join(proc.Pid); err != nil {
			proc.Kill()
			proc.Wait()
		}
	}
	if err != nil {
		closeAll(confR, jobW)
		return confiningStage{}, err
	}
	go func() {
		jobW.Write(job.encode())
		jobW.Close()
	}()
	stage := confiningStage{done: make(chan *os.ProcessState, 1), confined: make(chan helperStatus, 1), final: make(chan helperStatus, 1)}
	go stage.read(confR)
	go func() {
		st, _ := proc.Wait()
		stage.done <- st
	}()
	return stage, nil
}

// read reads the stage's reports: the first (the sandbox line, or why the
// program cannot run) and the last (how the program ended).
func (stage confiningStage) read(r *os.File) {
	defer r.Close()
	first := true
	var last helperStatus
	readHelperReports(r, func(next helperStatus) {
		if first {
			first = false
			stage.confined <- next
			return
		}
		last = next
	})
	if first {
		stage.confined <- helperStatus{Error: "the sandbox ended before it could say whether it was applied"}
	}
	stage.final <- last
}
