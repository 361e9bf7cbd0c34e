package lang

// The files a person hands glassbox: a policy file (loop/policy.go) and a
// cassette (providers/cassette.go). What is wrong with one is said in the
// reader's language; the file's own text and a parser's words stay as
// they are.
func init() {
	register(map[string]string{
		// A file or folder that cannot be opened (lang.Error).
		"%s: there is no such file or folder": "%s: そのようなファイルやフォルダーはありません",
		"%s: permission denied":               "%s: 権限がありません",
		// The sandbox line (lang.Sandbox, tools.SandboxStatus).
		"open: %s": "開いたまま: %s",
		"commands read only the workspace, their temporary folder and the system's program folders and change only the first two": "コマンドが読めるのはワークスペース、自分の一時フォルダー、システムのプログラムのフォルダーだけで、変えられるのは最初の 2 つだけです",
		"they see only their own processes":                           "見えるのは自分のプロセスだけです",
		"no device nodes, FIFOs, setuid files or new user namespaces": "デバイスノード、FIFO、setuid ファイル、新しいユーザー名前空間は作れません",
		"no device nodes or FIFOs":                                    "デバイスノードと FIFO は作れません",
		"nothing left open":                                           "開いたままのものはありません",
		"sockets closed: %s":                                          "閉じたソケット: %s",
		"limits: %s":                                                  "制限: %s",
		"workspace quota: %s (checked every %s while a program runs)": "ワークスペースの容量制限: %s (プログラムの実行中 %s ごとに確認)",
		"left open: %s":                                               "開いたまま: %s",
		"%s processes":                                                "プロセス %s 個",
		"%s of memory":                                                "メモリー %s",
		"%s of data a process":                                        "プロセスごとのデータ %s",
		"%s a file":                                                   "ファイル 1 つ %s",
		"%s of CPU a process":                                         "プロセスごとの CPU 時間 %s",
		"no core files":                                               "コアファイルなし",
		"%s entries":                                                  "項目 %s 個",
		"this program does not start the sandbox helper (glassbox's main calls tools.RunSandboxHelper first)":                              "このプログラムはサンドボックスのヘルパーを起動しません (glassbox の main が最初に tools.RunSandboxHelper を呼びます)",
		"the seccomp filter still refuses Unix, raw and (without network) UDP sockets, device nodes, setuid files and new user namespaces": "seccomp フィルターは引き続き、Unix・raw・(ネットワークなしなら) UDP のソケット、デバイスノード、setuid ファイル、新しいユーザー名前空間を拒否します",
		// --policy
		"%w: --policy %s: %w": "%w: --policy %s: %w",
		"policy file %s: %w":  "ポリシーファイル %s: %w",
		"policy file: %w":     "ポリシーファイル: %w",
		"policy file %s is larger than the limit of 1 MiB (%d bytes)":                   "ポリシーファイル %s が上限の 1 MiB (%d バイト) を超えています",
		"policy file %s is not a regular file (it is %s); give the path of a TOML file": "ポリシーファイル %s は通常のファイルではありません (%s です)。TOML ファイルのパスを指定してください",
		"policy file %s is %d bytes; the limit is 1 MiB (%d bytes)":                     "ポリシーファイル %s は %d バイトあります。上限は 1 MiB (%d バイト) です",
		"unknown keys: %s":           "知らないキーがあります: %s",
		"default: %w":                "default: %w",
		"rule %d":                    "ルール %d",
		"rule %d (%q)":               "ルール %d (%q)",
		"%s: name is required":       "%s: name が必要です",
		"%s: the name is used twice": "%s: その名前は 2 回使われています",
		"%s: %w":                     "%s: %w",
		"%s: attributes %q: no such attribute; the attributes are %s": "%s: attributes %q: そのような属性はありません。属性は %s です",
		"%s: origin %q: want %q or %q":                                "%s: origin %q: %q か %q を指定してください",
		"%s: command_matches %q: %w":                                  "%s: command_matches %q: %w",
		"%s: command_checks %q: no such check; the checks are %s":     "%s: command_checks %q: そのようなチェックはありません。チェックは %s です",
		"rule %q names the tool %q":                                   "ルール %q がツール %q を指定しています",
		"%w; the tools are: %s":                                       "%w。ツールは次のとおりです: %s",
		"verdict %q: want ALLOW, DENY or REQUIRE_USER_CONFIRMATION":   "verdict %q: ALLOW、DENY、REQUIRE_USER_CONFIRMATION のいずれかを指定してください",
		// --replay and --record
		"cannot open cassette %s: %w": "カセット %s を開けません: %w",
		"cannot read cassette %s: %w": "カセット %s を読めません: %w",
		"cassette %s: line %d is not a complete exchange (%v); the recording may have been cut off there — delete that line or record again with --record": "カセット %s: %d 行目は完全なやり取りではありません (%v)。録音がそこで途切れたのかもしれません — その行を消すか、--record で録音し直してください",
		"%s is empty, so it is not a glassbox cassette; record one with --record %s":                                                                       "%s は空なので glassbox のカセットではありません。--record %s で録音してください",
		"%s is not a glassbox cassette: its first line should be a header like {\"glassbox_cassette\":%d,...}; record one with --record":                   "%s は glassbox のカセットではありません: 1 行目は {\"glassbox_cassette\":%d,...} のようなヘッダーのはずです。--record で録音してください",
		"%s has a damaged cassette header (%v); record it again with --record":                                                                             "%s のカセットのヘッダーが壊れています (%v)。--record で録音し直してください",
		"%s is a version %d cassette, but this glassbox reads version %d; record it again with --record":                                                   "%s はバージョン %d のカセットですが、この glassbox が読めるのはバージョン %d です。--record で録音し直してください",
		"cannot create cassette %s: %w":                   "カセット %s を作れません: %w",
		"cannot encode a line of cassette %s: %w":         "カセット %s の行を書き出せません: %w",
		"cassette %s is already closed":                   "カセット %s はもう閉じています",
		"cannot write to cassette %s: %w":                 "カセット %s に書き込めません: %w",
		"cannot close cassette %s: %w":                    "カセット %s を閉じられません: %w",
		"a body must be a string or {\"base64\":...}: %w": "本文は文字列か {\"base64\":...} でなければなりません: %w",
		"a base64 body does not decode: %w":               "base64 の本文をデコードできません: %w",
	})
}
