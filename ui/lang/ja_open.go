package lang

// glassbox open: a trace file another tool wrote (ui/open, loop/tracefile,
// providers/spans), and stepping through it in the glass box.
func init() {
	register(map[string]string{
		// main.go's table and ui/open's flags
		"step through a trace another tool wrote (HAR, OTLP JSON, Gemini CLI telemetry), read only":               "他のツールが書いたトレース（HAR、OTLP JSON、Gemini CLI のテレメトリ）を読み取り専用でステップ実行します",
		"print the steps as JSONL trace records (as 'glassbox run --json' does) instead of opening the glass box": "グラスボックスを開かず、ステップを JSONL のトレースレコードとして出力します（'glassbox run --json' と同じ形）",
		"Usage: glassbox open FILE [--json]\n\nSteps through a trace another tool wrote, in the glass box, like a replay:\na HAR file (browser devtools, mitmproxy, glassbox export --format har),\nan OTLP JSON trace file (the OpenTelemetry collector's file exporter),\nor Gemini CLI's telemetry outfile. The kind is told from the content.\n\nFlags:": "使い方: glassbox open FILE [--json]\n\n他のツールが書いたトレースを、リプレイと同じようにグラスボックスでステップ実行します。\n読めるのは HAR ファイル（ブラウザの開発者ツール、mitmproxy、glassbox export --format har）、\nOTLP JSON のトレースファイル（OpenTelemetry Collector の file エクスポーター）、\nGemini CLI のテレメトリ出力ファイルです。種類は中身から判断します。\n\nフラグ:",
		"cannot open %s: %v": "%s を開けません: %v",
		"%s: %s":             "%s: %s",
		"the glass box needs a terminal; --json prints the steps instead":                              "グラスボックスには端末が必要です。--json ならステップを出力します",
		"unexpected argument %q (one file at a time)":                                                  "余分な引数 %q があります（ファイルは一度に 1 つです）",
		"which file? Give a HAR, OTLP JSON or Gemini CLI telemetry file":                               "どのファイルですか？ HAR、OTLP JSON、Gemini CLI のテレメトリのいずれかを指定してください",
		"%d entries of the file are no model call (pages, scripts, other requests): they make no step": "ファイルのうち %d 件はモデル呼び出しではありません（ページ、スクリプト、その他のリクエスト）。ステップにはなりません",
		"%s · %s, read from a file: nothing reaches a live agent":                                      "%s · %s（ファイルから読み込み。動いているエージェントには何も届きません）",
		"%s · %s written by %s, read from a file: nothing reaches a live agent":                        "%s · %s（%s が作成。ファイルから読み込み。動いているエージェントには何も届きません）",
		"1 entry of the file is no model call (a page, a script, another request): it makes no step":   "ファイルのうち 1 件はモデル呼び出しではありません（ページ、スクリプト、その他のリクエスト）。ステップにはなりません",
		"a trace file":                 "トレースファイル",
		"the file breaks off here: %s": "ファイルはここで途切れています: %s",

		// The glass box stepping through a file (ui/glassbox/follow.go, ui/glassbox/model.go, ui/glassbox/live.go)
		"the end of the trace: [ ] go back in time; q quits":                                              "トレースの終わりです。[ ] で過去に戻れます。q で終了します",
		"back at the latest step shown: press again to step on":                                           "表示済みの最新ステップに戻りました。もう一度押すと先へ進みます",
		"the end of the trace: nothing more to step ([ ] go back in time; q quits)":                       "トレースの終わりです。これ以上進めません（[ ] で過去に戻る、q で終了）",
		"read-only: this is a trace file, not a live agent (space steps · [ ] go back in time · q quits)": "読み取り専用: これはトレースファイルで、動いているエージェントではありません（space で進む · [ ] で過去に戻る · q で終了）",
		"read-only: a trace file · space steps · i an iteration · c a turn · [ ] back in time · q quits":  "読み取り専用: トレースファイル · space で 1 ステップ · i で 1 反復 · c で 1 ターン · [ ] で過去へ · q で終了",
		"%s, inferred: %s": "%s（推定）: %s",
		"No model call yet: space steps through the file to its first call; what the file holds of it appears here.": "まだモデル呼び出しはありません。space でファイルを最初の呼び出しまで進めると、ファイルにあるその内容がここに出ます。",
		"iteration %s": "反復 %s",
		"FILE: a trace another agent left, stepped through here; the steps glassbox cannot see, only infer (the agent approving and running its tools, showing its answer), say so.": "FILE: 他のエージェントが残したトレースをここでステップ実行します。glassbox には見えず推定するしかないステップ（エージェントによるツールの承認と実行、回答の表示）にはそう書いてあります。",
		"First moves: space steps one transition, i one model call, c the whole turn; [ and ] go back and forth in time. Press esc, then ? for every key.":                           "はじめに: space で 1 遷移、i で 1 回のモデル呼び出し、c で 1 ターン全体を進めます。[ と ] で時間を前後に移動できます。esc の後 ? ですべてのキーを表示します。",
		"This trace records the call's messages, not its HTTP exchange: History shows what was sent and answered, Tool calls the calls and results.":                                 "このトレースが記録しているのは呼び出しのメッセージで、HTTP のやり取りではありません。送った内容と答えは「履歴」に、ツール呼び出しと結果は「ツール」に表示されます。",

		// What a file lacks (providers/spans, loop/tracefile)
		"This trace records messages, not HTTP: it has no request or response bodies, headers or timings of the wire.":                "このトレースが記録しているのはメッセージで、HTTP ではありません。通信上のリクエスト・レスポンスの本文、ヘッダー、タイミングはありません。",
		"This trace has no prompts: the messages sent to the model are not in it (Gemini CLI writes them with telemetry.logPrompts).": "このトレースにはプロンプトがありません。モデルに送られたメッセージは含まれていません（Gemini CLI は telemetry.logPrompts を有効にすると書き出します）。",
		"This trace has no replies: what the model answered is not in it.":                                                            "このトレースには応答がありません。モデルが何と答えたかは含まれていません。",
		"This trace has no system instructions.":                                                                                      "このトレースにはシステム指示がありません。",
		"This trace has no tool declarations.":                                                                                        "このトレースにはツールの宣言がありません。",
		"This trace has no token counts.":                                                                                             "このトレースにはトークン数がありません。",
		"This trace holds no model call glassbox can read (no GenAI inference span, no Gemini CLI api_request).":                      "このトレースには glassbox が読めるモデル呼び出しがありません（GenAI の推論スパンも Gemini CLI の api_request もありません）。",
		"This trace has no response bodies: the tool that saved it left them out, so what the model answered is not known.":           "このトレースにはレスポンスの本文がありません。保存したツールが省いたため、モデルが何と答えたかはわかりません。",
		"This HAR file holds no model call glassbox can read (Gemini, OpenAI-compatible or Ollama).":                                  "この HAR ファイルには glassbox が読めるモデル呼び出し（Gemini、OpenAI 互換、Ollama）がありません。",
		"the trace holds no reply to this call":                                                                                       "トレースにはこの呼び出しへの応答がありません",

		// Reading the files (loop/tracefile, providers/spans)
		"glassbox reads HAR 1.2, OTLP JSON and Gemini CLI telemetry files": "glassbox が読めるのは HAR 1.2、OTLP JSON、Gemini CLI のテレメトリのファイルです",
		"%w; this file is empty":             "%w。このファイルは空です",
		"%w; this file is not a JSON object": "%w。このファイルは JSON オブジェクトではありません",
		"%w; this file is JSON of another kind (its first object has no \"log\", \"resourceSpans\" or span of the OpenTelemetry JS SDK)": "%w。このファイルは別の種類の JSON です（最初のオブジェクトに \"log\"、\"resourceSpans\"、OpenTelemetry JS SDK のスパンのいずれもありません）",
		"not an OpenTelemetry trace file":                          "OpenTelemetry のトレースファイルではありません",
		"the trace file is cut off":                                "トレースファイルが途中で切れています",
		"a batch of the trace file is larger than glassbox reads":  "トレースファイルのバッチが glassbox の読める大きさを超えています",
		"%w: batch %d is over %d MiB":                              "%w: バッチ %d が %d MiB を超えています",
		"%w after %d batches":                                      "%w（%d バッチの後）",
		"%w: batch %d: %v":                                         "%w: バッチ %d: %v",
		"%w: batch %d is not a JSON object":                        "%w: バッチ %d は JSON オブジェクトではありません",
		"%w: %s":                                                   "%w: %s",
		"it has no resourceSpans, resourceLogs or resourceMetrics": "resourceSpans、resourceLogs、resourceMetrics のいずれもありません",
		"it is OTLP JSON, not Gemini CLI's outfile":                "これは OTLP JSON で、Gemini CLI の出力ファイルではありません",
		"it is no span, log record or metrics object of the OpenTelemetry JS SDK": "OpenTelemetry JS SDK のスパン、ログレコード、メトリクスのどれでもありません",
	})
}
