package lang

import (
	"strings"
	"testing"
)

// The sandbox line reads in Japanese clause by clause, what it names kept
// as it is; English is the line itself.
func TestSandboxLineInJapanese(t *testing.T) {
	on := "on — Landlock ABI 7 + seccomp + read-only mounts + PID namespace: commands read only the workspace, their temporary folder and the system's program folders and change only the first two; they see only their own processes; no device nodes, FIFOs, setuid files or new user namespaces; sockets closed: Unix, raw, UDP, TCP; limits: 256 processes (cgroup v1 pids.max), 1 GiB of memory (cgroup v1 memory.limit_in_bytes), 256 MiB a file, 20 s of CPU a process, no core files (rlimits); workspace quota: 128 MiB and 10,000 entries (checked every 250ms while a program runs); nothing left open"
	got := JA.Sandbox(on)
	for _, want := range []string{"有効 — Landlock ABI 7 + seccomp", "コマンドが読めるのはワークスペース", "見えるのは自分のプロセスだけです", "閉じたソケット: Unix, raw, UDP, TCP",
		"制限: プロセス 256 個 (cgroup v1 pids.max)、メモリー 1 GiB (cgroup v1 memory.limit_in_bytes)、ファイル 1 つ 256 MiB、プロセスごとの CPU 時間 20 s、コアファイルなし (rlimits)",
		"ワークスペースの容量制限: 128 MiB、項目 10,000 個 (プログラムの実行中 250ms ごとに確認)", "開いたままのものはありません"} {
		if !strings.Contains(got, want) {
			t.Errorf("JA.Sandbox lacks %q:\n%s", want, got)
		}
	}
	for _, english := range []string{"commands read", "limits:", "processes", "of memory", "nothing left", "sockets closed", "on —"} {
		if strings.Contains(got, english) {
			t.Errorf("JA.Sandbox keeps %q:\n%s", english, got)
		}
	}
	if EN.Sandbox(on) != on {
		t.Error("the English line changed")
	}
	off := "off — this program does not start the sandbox helper (glassbox's main calls tools.RunSandboxHelper first)"
	if got := JA.Sandbox(off); got != "無効 — このプログラムはサンドボックスのヘルパーを起動しません (glassbox の main が最初に tools.RunSandboxHelper を呼びます)" {
		t.Errorf("JA.Sandbox(off) = %q", got)
	}
	open := "on (open: TCP) — Landlock ABI 3: commands read only the workspace, their temporary folder and the system's program folders and change only the first two; limits: 8 processes; left open: TCP (TCP rules need Landlock ABI 4)"
	if got := JA.Sandbox(open); !strings.HasPrefix(got, "有効 (開いたまま: TCP) — Landlock ABI 3: ") || !strings.HasSuffix(got, "開いたまま: TCP (TCP rules need Landlock ABI 4)") {
		t.Errorf("JA.Sandbox(open) = %q", got)
	}
}
