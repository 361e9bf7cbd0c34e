package lang

// Breakpoints (loop/breakpoint, docs/breakpoints.md): the mistakes --break
// and the breakpoint dialog refuse, and what the glass box says when a
// breakpoint stops a run. The language itself — state=, edge=, tool~=,
// the names of states, edges, verdicts and dialects — stays as it is.
func init() {
	register(map[string]string{
		// loop/breakpoint's parse errors
		"--break %q: the expression is empty; write at least one condition, such as state=CHECKING_POLICY or tool=write_file (the conditions are %s)": "--break %q: 式が空です。state=CHECKING_POLICY や tool=write_file のように、条件を 1 つ以上書いてください(条件は %s)",
		"--break %q, condition %d: %w": "--break %q の %d 番目の条件: %w",
		"it is empty (two commas in a row, or one at an end); the conditions are %s":             "空です(コンマが 2 つ続いているか、末尾にあります)。条件は %s です",
		"%q has no operator: write NAME=VALUE, NAME~=GLOB or NAME>NUMBER; the conditions are %s": "%q に演算子がありません。NAME=VALUE、NAME~=GLOB、NAME>NUMBER のように書いてください。条件は %s です",
		"unknown condition %q in %q; the conditions are %s":                                      "%[2]q の %[1]q という条件はありません。条件は %[3]s です",
		"%q: %s takes %s":                                                            "%q: %s に使える演算子は %s です",
		"%q has no value after %s":                                                   "%q: %s の後に値がありません",
		"%s: there is no state %q; the states are %s":                                "%s: %q という状態はありません。状態は %s です",
		"%s: there is no edge %q; the edges are %s":                                  "%s: %q というエッジはありません。エッジは %s です",
		"%s: there is no verdict %q; the verdicts are %s, %s and %s":                 "%s: %q という判定はありません。判定は %s、%s、%s です",
		"%s: there is no dialect %q; the dialects are %s":                            "%s: %q という方言はありません。方言は %s です",
		"%s: %q has a space or a control character in it; names and paths have none": "%s: %q に空白か制御文字が含まれています。名前やパスには使えません",
		"%s: %q is not a size; write a whole number, with k (thousand) or M (million) if you like: 8000, 40k, 1.5M": "%s: %q は大きさとして読めません。整数で書いてください。k(千)や M(百万)も使えます: 8000、40k、1.5M",
		// main.go: the flag
		"stop c where EXPR matches (docs/breakpoints.md): conditions joined by commas, all of which must hold — %s; repeatable, any one stops":                                 "EXPR に当てはまるところで c を止めます(docs/breakpoints.md)。条件をコンマでつなぎ、すべてが成り立つときに当てはまります — %s。繰り返し指定でき、どれか 1 つが当てはまれば止まります",
		"not for glassbox run, which runs to the end without stopping: breakpoints stop c in the glass box (glassbox --break EXPR)":                                            "glassbox run では使えません(途中で止まらずに最後まで動くため)。ブレークポイントは glass box の c を止めます(glassbox --break EXPR)",
		"--break %s: glassbox run runs the loop to the end without stopping, so a breakpoint has nothing to stop; step with breakpoints in the glass box: glassbox --break %s": "--break %s: glassbox run はループを途中で止めずに最後まで動かすので、ブレークポイントが止めるものがありません。ブレークポイントを使って一歩ずつ進めるには glass box を使ってください: glassbox --break %s",
		// the glass box: stopping, the status bar, the dialog (K)
		"stopped by breakpoint #%d %s at step %d (%s ─%s─▶ %s)":                          "ブレークポイント #%d %s でステップ %d に止まりました(%s ─%s─▶ %s)",
		"breakpoint #%d %s matches step %d (%s ─%s─▶ %s)":                                "ブレークポイント #%d %s がステップ %d に当てはまります(%s ─%s─▶ %s)",
		"; tokens %d (reported by the provider)":                                         "。トークン %d(プロバイダーの報告)",
		"; tokens ≈%d (estimated: the request's bytes ÷ %d; the provider reported none)": "。トークン ≈%d(推定: リクエストのバイト数 ÷ %d。プロバイダーの報告なし)",
		"; request %d bytes":    "。リクエスト %d バイト",
		"break":                 "ブレーク",
		"#%d %s @ step %d":      "#%d %s @ ステップ %d",
		"%d set (K)":            "%d 個 (K)",
		"edit breakpoints":      "ブレークポイントの編集",
		"Breakpoints":           "ブレークポイント",
		"add":                   "追加",
		"remove the one picked": "選んだものを削除",
		"such as tool=write_file or verdict=DENY": "例: tool=write_file、verdict=DENY",
		"new: ":                    "新規: ",
		"%d breakpoint%s in force": "有効なブレークポイント %d 個%.0s",
		"type a breakpoint first, such as tool=write_file":                          "まずブレークポイントを入力してください(例: tool=write_file)",
		"breakpoint #%d %s is already in force":                                     "ブレークポイント #%d %s はすでに有効です",
		"breakpoint #%d %s: i and c stop where it begins to match":                  "ブレークポイント #%d %s: i と c は、これが当てはまり始めたところで止まります",
		"breakpoint #%d %s: c stops where it begins to match":                       "ブレークポイント #%d %s: c は、これが当てはまり始めたところで止まります",
		"In force — c stops where one begins to match (several: any one):":          "有効なもの — c は、どれか 1 つが当てはまり始めたところで止まります:",
		"no breakpoint to remove":                                                   "削除するブレークポイントがありません",
		"breakpoint %s removed":                                                     "ブレークポイント %s を削除しました",
		"In force — i and c stop where one begins to match (several: any one):":     "有効なもの — i と c は、どれか 1 つが当てはまり始めたところで止まります:",
		"none yet: type one below, or press b on a state in State machine":          "まだありません。下に入力するか、状態機械ペインで状態を選んで b を押してください",
		"Conditions, joined by commas, all of which must hold: %s. For example: %s": "条件(コンマでつなぎ、すべてが成り立つと当てはまります): %s。例: %s",
	})
}
