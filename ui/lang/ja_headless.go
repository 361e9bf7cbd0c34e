package lang

// The human trace of `glassbox run` (loop.Say: ui/headless passes Lang.F),
// its prompts to the person, the session listings and the health line.
// Tags ([THINK]), states, edges, rules, tools and field names such as
// stop_reason stay as they are.
func init() {
	register(map[string]string{
		// loop/trace.go: the step lines
		"iteration %d: context assembled (%s + tool definitions)": "反復 %d: コンテキストを組み立てました(%s + ツール定義)",
		"%d message":                               "メッセージ %d 件",
		"%d messages":                              "メッセージ %d 件",
		"tokens %d→%d · %d ms":                     "トークン %d→%d · %d ms",
		"(server: %d ms)":                          "(サーバー側: %d ms)",
		"%d retry":                                 "再試行 %d 回",
		"REPLAY DIVERGENCE: %s":                    "リプレイとの食い違い: %s",
		"thought: %q":                              "思考: %q",
		"context edited before sending: %s":        "送信前にコンテキストを編集: %s",
		"retry %d after %d ms (%s)":                "再試行 %d(%d ms 待機、理由 %s)",
		"(rule %s: %s)":                            "(ルール %s: %s)",
		"%s → failed in %d ms: %s":                 "%s → 失敗(%d ms): %s",
		"%s → ok in %d ms: %s":                     "%s → 成功(%d ms): %s",
		"result of %s":                             "%s の結果",
		"error for %s":                             "%s のエラー",
		"the parse error":                          "解析エラー",
		"(+ %s of this turn not run: interrupted)": "(+ このターンの残り %s は未実行: 中断)",
		"%d later call":                            "%d 件の呼び出し",
		"%d later calls":                           "%d 件の呼び出し",
		"%s added to context → back to the model":  "%sをコンテキストに追加 → モデルへ戻ります",
		"%s added to context → next tool call":     "%sをコンテキストに追加 → 次のツール呼び出しへ",
		"from %s":                                  "(%s から)",
		"to %s: %s":                                "%s へ: %s",
		"reported to %s: %s":                       "%s へ報告: %s",
		"in %s: %s; running commands were stopped, temporary files removed": "%s で停止: %s。実行中のコマンドを止め、一時ファイルを削除しました",

		// loop/health.go: the health line
		"%d call":             "呼び出し %d 回",
		"%d failure fed back": "差し戻した失敗 %d 件",

		// loop/engine.go: a provider failure the loop gave up on (said on
		// stderr; the trace keeps the English message)
		"%w %w":                 "%w %w",
		"%w (gave up after %w)": "%w(%wで打ち切りました)",
		"(the service asked to wait %s, longer than the %s glassbox will wait)":          "(サービスは %s 待つよう求めましたが、glassbox が待つのは最大 %s です)",
		"(the service asked to wait at least %s, longer than the %s glassbox will wait)": "(サービスは少なくとも %s 待つよう求めましたが、glassbox が待つのは最大 %s です)",
		"%w; no reply came back for this request":                                        "%w。このリクエストへの応答は 1 つも届いていません",
		"%w; the last reply's stop reason: %s":                                           "%w。最後の応答の停止理由: %s",

		// ui/headless: the header, stderr and the summary of a comparison
		"workspace: %s": "ワークスペース: %s",
		"sandbox: %s":   "サンドボックス: %s",
		"compare %s: the same request, stepped in lockstep":            "比較 %s: 同じリクエストを交互に一歩ずつ進めます",
		"interrupted in %s: %s":                                        "%s で中断しました: %s",
		"halted: the iteration limit (%s for one request) was reached": "停止: 反復の上限(1 リクエストにつき %s)に達しました",
		"%d model call":           "モデル呼び出し %d 回",
		"%d model calls":          "モデル呼び出し %d 回",
		"halted: %s":              "停止: %s",
		"the provider failed: %s": "プロバイダーが失敗しました: %s",
		"writing the trace: %s":   "トレースを書き込めません: %s",
		"%d transition":           "遷移 %d 回",
		"%d transitions":          "遷移 %d 回",
		"tokens %d in / %d out · %d ms waiting for the model": "トークン 入力 %d / 出力 %d · モデル待ち %d ms",
		"warning: %s":                           "警告: %s",
		"recovering: %s":                        "復旧中: %s",
		"resumed %s at step %d (%s)":            "%s をステップ %d(%s)から再開しました",
		"from step %d, continuing with %s (%s)": "ステップ %d から分岐し、%s(%s)で続けます",

		// ui/headless/person.go: asking the person
		"The agent wants to run %s %s":                          "エージェントが %s %s を実行しようとしています",
		"allow? [y]es once / [a]lways this exact call / [n]o: ": "許可しますか? [y] 今回だけ(はい)/ [a] この呼び出しは常に(常に)/ [n] 拒否(いいえ): ",
		"(no answer: denied)":                                   "(回答なし: 拒否しました)",
		"The agent asks: %s":                                    "エージェントからの質問: %s",
		"answer: ":                                              "回答: ",
		"(end of input)":                                        "(入力が終わりました)",

		// ui/headless and ui/sessions: sessions
		"%s (the session file is incomplete)":     "%s(セッションファイルは不完全です)",
		"session saved: %s":                       "セッションを保存しました: %s",
		"resume it with: %s":                      "再開するには: %s",
		"no sessions yet in %s":                   "%s にはまだセッションがありません",
		"(unreadable: %s)":                        "(読めません: %s)",
		"id\tstarted\tprovider(s)\tsteps\thealth": "ID\t開始\tプロバイダー\tステップ\t健全性",
		"session":            "セッション",
		"started":            "開始",
		"provider(s)":        "プロバイダー",
		"steps":              "ステップ数",
		"%d (last state %s)": "%d(最後の状態 %s)",
		"size on disk":       "ディスク上のサイズ",
		"%d bytes (the session file, its exchanges and file copies)": "%d バイト(セッションファイル、通信記録、ファイルのコピー)",
		"model calls":             "モデル呼び出し",
		"%d, %d retried attempts": "%d 回、再試行 %d 回",
		"fed back":                "差し戻した失敗",
		"time per call":           "1 回あたりの時間",
		"%d in, %d out":           "入力 %d、出力 %d",

		// ui/headless/telemetry.go: OpenTelemetry export
		"OpenTelemetry: spans go to %s (%s)":                          "OpenTelemetry: スパンの送り先は %s(%s)",
		"with the messages and tool results, masked (--otlp-content)": "メッセージとツールの結果もマスクして載せます(--otlp-content)",
		"OpenTelemetry: %d span%s sent to %s":                         "OpenTelemetry: スパン %d 件%.0sを %s へ送りました",
		"OpenTelemetry: %d span%s sent to %s; %d dropped: %s":         "OpenTelemetry: スパン %d 件%.0sを %s へ送りました。%d 件は送れませんでした: %s",
		"%s (%d)": "%s(%d 件)",
		"; ":      "。",
		// loop/telemetry's reasons (Dyn)
		"the collector refused the connection":          "コレクターが接続を拒否しました",
		"the collector did not answer in time":          "コレクターが時間内に応答しませんでした",
		"the collector could not be reached":            "コレクターに到達できませんでした",
		"the collector answered with an error":          "コレクターがエラーを返しました",
		"the export failed":                             "送信に失敗しました",
		"the queue to the collector was full":           "コレクターへの送信待ちがいっぱいでした",
		"glassbox fell behind making spans":             "glassbox のスパン作成が追いつきませんでした",
		"glassbox ended before the collector took them": "コレクターが受け取る前に glassbox が終了しました",
	})
}
