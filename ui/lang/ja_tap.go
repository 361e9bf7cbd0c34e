package lang

// glassbox tap: the command line (ui/tapbox), the tap's notes and errors
// (loop/tap), its glass box (ui/glassbox/tap.go) and its headless trace. Variable
// names, paths, flags, URLs and wire names stay as they are.
func init() {
	register(map[string]string{
		// the subcommand's summary (main.go's table) and its help
		"a glass box around any agent: its model calls held and stepped (point it at the address printed)": "どんなエージェントもガラス箱に入れます: モデル呼び出しを保留してステップ実行します(表示されるアドレスにエージェントを向けます)",
		"Usage: glassbox tap [flags]\n\nA glass box around any agent (Gemini CLI, Codex, opencode, crush, …): point the agent\nat the address it prints, and every model call it makes becomes steps you can hold,\nstep and edit. In the glass box each request and reply waits for space; c lets the\nagent run. What the agent does between its calls — its approvals, its tools — a tap\ncannot see.\n\nFlags:": "使い方: glassbox tap [flags]\n\nどんなエージェント(Gemini CLI、Codex、opencode、crush など)もガラス箱に入れます。\n表示されるアドレスにエージェントを向けると、エージェントのモデル呼び出しがすべて、\n保留・ステップ実行・編集のできるステップになります。glass box ではリクエストと応答が\nそれぞれ space を待ちます。c でエージェントを走らせます。呼び出しと呼び出しの間に\nエージェントがすること(承認、ツールの実行)は、タップからは見えません。\n\nフラグ:",
		"listen on ADDR (HOST:PORT; port 0 lets the system choose): the address the agent is pointed at":                                                                                                                                                            "ADDR(HOST:PORT。ポート 0 ならシステムが選びます)で待ち受けます: エージェントを向けるアドレスです",
		"let --listen use an address that is not a loopback one (whoever reaches it can call the model through the tap)":                                                                                                                                            "--listen にループバック以外のアドレスを許します(そこに届く人は誰でもタップ経由でモデルを呼び出せます)",
		"where the calls go: offline (glassbox's built-in emulator, no key and no network) or a URL every family's calls go to (default: each family's own service; Ollama's from OLLAMA_HOST)":                                                                     "呼び出しの送り先: offline(glassbox 内蔵のエミュレーター。キーもネットワークも不要)か、全ファミリーの呼び出しを送る URL(既定: 各ファミリー本来のサービス。Ollama は OLLAMA_HOST から)",
		"headless: write each step to standard output as a JSON line (the format of run --json); nothing is held":                                                                                                                                                   "ヘッドレス: 各ステップを JSON の 1 行(run --json と同じ形式)として標準出力に書きます。保留はしません",
		"write every exchange to FILE as a cassette, which glassbox --replay FILE steps later with no agent and no network":                                                                                                                                         "すべてのやり取りを FILE にカセットとして書きます。あとで glassbox --replay FILE で、エージェントもネットワークもなしにステップ実行できます",
		"keep the session in FILE (default: a new file in the sessions folder)":                                                                                                                                                                                     "セッションを FILE に保存します(既定: セッションフォルダーの新しいファイル)",
		"go on with a tap session (an id from 'glassbox sessions', or a file): its steps are shown and new ones follow them":                                                                                                                                        "タップのセッションを続けます('glassbox sessions' の ID かファイル): それまでのステップが表示され、新しいステップがその後に続きます",
		"broadcast the glass box on ADDR (e.g. 127.0.0.1:2222) to followers: ssh -p PORT follow@HOST or glassbox follow HOST:PORT":                                                                                                                                  "glass box を ADDR(例: 127.0.0.1:2222)でフォロワーに配信します: ssh -p PORT follow@HOST または glassbox follow HOST:PORT",
		"send each step as OpenTelemetry GenAI spans to the collector at URL (OTLP/HTTP; OTEL_EXPORTER_OTLP_ENDPOINT when unset)":                                                                                                                                   "各ステップを OpenTelemetry の GenAI スパンとして URL のコレクターに送ります(OTLP/HTTP。未指定なら OTEL_EXPORTER_OTLP_ENDPOINT)",
		"put the messages, tool arguments and results on the spans too (masked)":                                                                                                                                                                                    "メッセージ、ツールの引数と結果もスパンに載せます(マスク済み)",
		"unexpected argument %q: glassbox tap takes flags only (the agent runs in its own terminal)":                                                                                                                                                                "予期しない引数 %q: glassbox tap が取るのはフラグだけです(エージェントは自分の端末で動かします)",
		"--listen %q: want HOST:PORT, such as 127.0.0.1:8080":                                                                                                                                                                                                       "--listen %q: HOST:PORT の形で指定してください(例: 127.0.0.1:8080)",
		"--listen %s is not a loopback address: whoever reaches it could call the model through the tap, with the agent's key. Listen on 127.0.0.1, or give --listen-public if you mean it.":                                                                        "--listen %s はループバックのアドレスではありません: そこに届く人は誰でも、エージェントのキーでタップ経由のモデル呼び出しができてしまいます。127.0.0.1 で待ち受けるか、本当にそのつもりなら --listen-public を付けてください。",
		"--session and --resume name the session twice; give one":                                                                                                                                                                                                   "--session と --resume でセッションを二重に指定しています。どちらか一つにしてください",
		"--broadcast shows the glass box to followers; it does not go with --json":                                                                                                                                                                                  "--broadcast は glass box をフォロワーに見せるものなので、--json とは併用できません",
		"in the glass box, c lets the agent run until EXPR begins to match one of its calls, and holds that request or reply (docs/breakpoints.md): conditions joined by commas, all of which must hold — %s; repeatable, any one holds":                            "glass box で c を押すと、EXPR がエージェントの呼び出しのどれかに当てはまり始めるまでエージェントを走らせ、そのリクエストか応答を保留します(docs/breakpoints.md): 条件はカンマでつなぎ、すべてが成り立つ必要があります — %s。繰り返し指定でき、どれか一つで保留します",
		"--break %s holds calls until a person steps them in the glass box; without it (--json, or standard output not a terminal) nothing is held, so a breakpoint would be silently ignored: leave out --break, or run glassbox tap in a terminal without --json": "--break %s は、glass box で人がステップ実行するまで呼び出しを保留するものです。glass box がないとき(--json、または標準出力が端末でないとき)は何も保留しないので、ブレークポイントが黙って無視されてしまいます: --break を外すか、glassbox tap を --json なしで端末で動かしてください",
		"--listen %s: %v": "--listen %s: %v",
		"%w: %s is the session of a tap (another agent's calls): go on with it with glassbox tap --resume %s": "%w: %s はタップ(他のエージェントの呼び出し)のセッションです: glassbox tap --resume %s で続けてください",
		"%s is a session of glassbox's own agent, not of a tap: go on with it with glassbox --resume %s":      "%s は glassbox 自身のエージェントのセッションで、タップのものではありません: glassbox --resume %s で続けてください",

		// what the tap says first, on the terminal and in History
		"glassbox tap on %s: point your agent here (set one of these in its shell):": "glassbox tap は %s で待ち受けています: エージェントをここに向けてください(エージェントのシェルでどれか一つを設定します):",
		"the calls go to %s": "呼び出しの送り先: %s",
		"a tap sees the model calls only: the agent's own approvals and the tools it runs happen out of sight (those steps are marked inferred)": "タップに見えるのはモデル呼び出しだけです: エージェント自身の承認や、エージェントが実行するツールは見えません(そのステップには「推定」の印が付きます)",
		"the agent's key goes on to the service as it came, and is masked in everything glassbox shows and keeps":                                "エージェントのキーはそのままサービスへ転送され、glassbox が表示・保存するものではすべてマスクされます",
		"glassbox's built-in emulator (--upstream offline: no key, no network)":                                                                  "glassbox 内蔵のエミュレーター(--upstream offline: キーもネットワークも不要)",
		"each family's own service (Gemini, OpenAI, Ollama from OLLAMA_HOST)":                                                                    "各ファミリー本来のサービス(Gemini、OpenAI、Ollama は OLLAMA_HOST から)",
		"cassette written to %s (glassbox --replay %s steps it again)":                                                                           "カセットを %s に書きました(glassbox --replay %s で再びステップ実行できます)",
		"session saved: %s (glassbox tap --resume %s goes on with it)":                                                                           "セッションを保存しました: %s(glassbox tap --resume %s で続けられます)",

		// the tap's notes and errors (loop/tap)
		"the agent gave up waiting after %s while its request was held: the request was not sent":                                                            "リクエストを保留している間に、エージェントが %s で待つのをやめました: リクエストは送られていません",
		"the agent gave up waiting after %s while its reply was held: the reply was not delivered":                                                           "応答を保留している間に、エージェントが %s で待つのをやめました: 応答は届けられていません",
		"a request body of %d bytes: glassbox keeps and shows the first %d, and passed it on whole":                                                          "%d バイトのリクエスト本文: glassbox が保存・表示するのは先頭の %d バイトで、本文は全部そのまま転送しました",
		"a reply body of %d bytes: glassbox keeps and shows the first %d, and passed it on whole":                                                            "%d バイトの応答本文: glassbox が保存・表示するのは先頭の %d バイトで、本文は全部そのまま転送しました",
		"the agent called %s %s, which no API family serves: it got a 404 naming the paths the tap knows":                                                    "エージェントが %s %s を呼び出しましたが、これはどの API ファミリーのものでもありません: タップが扱うパスを示した 404 を返しました",
		"the %s calls would go to %s, which is the tap itself: set the upstream with --upstream, or unset the variable that points there in the tap's shell": "%s の呼び出しの送り先 %s はタップ自身です: --upstream で送り先を指定するか、タップのシェルでそこを指している変数を解除してください",
		"the %s service's address: %w": "%s のサービスのアドレス: %w",
		"--upstream %s: %w":            "--upstream %s: %w",
		"want offline or a URL such as http://127.0.0.1:11434 or https://generativelanguage.googleapis.com":                            "offline か、http://127.0.0.1:11434 や https://generativelanguage.googleapis.com のような URL を指定してください",
		"what-if: call %d is not held any more; nothing was changed":                                                                   "what-if: 呼び出し %d はもう保留されていません。何も変えていません",
		"what-if: a reply is held, not a request; what-if edits a request before it goes":                                              "what-if: 保留されているのは応答で、リクエストではありません。what-if が編集するのは送られる前のリクエストです",
		"what-if: this request's body holds a secret or was kept cut, so it is not written to a file for editing; nothing was changed": "what-if: このリクエストの本文は秘密の値を含むか、途中までしか保存していないため、編集用のファイルには書きません。何も変えていません",
		"what-if: glassbox cannot read the request it holds (%v); nothing was changed":                                                 "what-if: glassbox は保留中のリクエストを読めません(%v)。何も変えていません",
		"what-if: the edited body is not a request the %s API reads (%v); nothing was changed":                                         "what-if: 編集した本文は %s の API が読めるリクエストではありません(%v)。何も変えていません",
		"what-if: the held request was edited (%s); it goes as edited when released":                                                   "what-if: 保留中のリクエストを編集しました(%s)。解放すると編集したとおりに送られます",

		// the glass box of a tap (ui/glassbox/tap.go and the panes)
		"user (as the agent sent it)": "ユーザー(エージェントが送ったとおり)",
		"a tap sends nothing: the agent's person types in the agent's own terminal · space steps · c runs · q quits":                                "タップからは何も送りません: エージェントの利用者はエージェント自身の端末で入力します · space でステップ · c で実行 · q で終了",
		"No model call yet: point the agent at the tap (History says how). Each call's exact HTTP request and reply appear here, held until space.": "まだモデル呼び出しはありません: エージェントをタップに向けてください(方法は履歴にあります)。呼び出しごとに、HTTP のリクエストと応答がそのままここに出て、space を押すまで保留されます。",
		"the tap has stopped: no call reaches it any more; q quits":                                                                                 "タップは止まりました: もう呼び出しは届きません。q で終了します",
		"held: the service's reply, before the agent gets it — space delivers it · c lets the agent run":                                            "保留中: エージェントに届く前のサービスの応答 — space で届けます · c でエージェントを走らせます",
		"held: the agent's request, before it goes — space sends it · w edits it first · c lets the agent run":                                      "保留中: 送られる前のエージェントのリクエスト — space で送ります · w で先に編集します · c でエージェントを走らせます",
		"held: the agent's request, before it goes — space sends it · c lets the agent run":                                                         "保留中: 送られる前のエージェントのリクエスト — space で送ります · c でエージェントを走らせます",
		"stopped":                       "停止",
		"stepping":                      "ステップ実行",
		"request":                       "リクエスト",
		"reply":                         "応答",
		"%s · held: %s #%d (%s) for %s": "%s · 保留中: %s #%d(%s)%s 経過",
		"+%d more":                      "ほか %d 件",
		"stopped by %s":                 "%s で停止",
		"nothing is held: the agent is working — running its tools, or waiting for its person — out of a tap's sight, or it has not called yet": "保留中のものはありません: エージェントはタップから見えないところで作業中(ツールの実行や利用者の入力待ち)か、まだ呼び出していません",
		"delivered: the agent has the reply":             "届けました: エージェントが応答を受け取りました",
		"sent: the request is on its way to the service": "送りました: リクエストはサービスへ向かっています",
		"No model call yet: point the agent at the tap (History says how). What each request it sends is made of, and what each part costs, appears here.": "まだモデル呼び出しはありません: エージェントをタップに向けてください(やり方は履歴にあります)。エージェントが送る各リクエストが何でできていて、各部分にどれだけかかるかが、ここに出ます。",
		"running until a breakpoint (%d in force, K lists them): the agent's calls pass through until one begins to match; p holds them again":             "ブレークポイントまで実行中(%d 個が有効。K で一覧): どれかが当てはまり始めるまで、エージェントの呼び出しは通過します。p で再び保留します",
		"running: the agent's calls pass through as they come (p holds them again)":                                                                        "実行中: エージェントの呼び出しは届いたまま通過します(p で再び保留します)",
		"stepping: the agent's next request and reply will be held":                                                                                        "ステップ実行: エージェントの次のリクエストと応答を保留します",
		"a tap shows another agent's calls: it cannot fork them or send a request — talk to the agent in its own terminal":                                 "タップが見せるのは他のエージェントの呼び出しです: 分岐やリクエストの送信はできません — エージェントにはその端末で話しかけてください",
		"what-if edits a held request before it goes: none is held (p holds the next one)":                                                                 "what-if は保留中のリクエストを送る前に編集します: 保留中のリクエストがありません(p で次のものを保留します)",
		"what-if: this request's body holds a secret or was kept cut, so it is not written to a file for editing":                                          "what-if: このリクエストの本文は秘密の値を含むか、途中までしか保存していないため、編集用のファイルには書きません",
		"what-if: the request is not held any more":                                                                                                        "what-if: そのリクエストはもう保留されていません",
		"what-if: the editor failed (%v); the request is unchanged":                                                                                        "what-if: エディターが失敗しました(%v)。リクエストは変わっていません",
		"what-if: cannot read the edited request: %v":                                                                                                      "what-if: 編集したリクエストを読めません: %v",
		"what-if: nothing changed; space sends the request as it was":                                                                                      "what-if: 変更はありません。space で元のとおりに送ります",
		"what-if: the edited request is what space sends (the step that sends it is marked \"edited\")":                                                    "what-if: space で送られるのは編集したリクエストです(それを送るステップには \"edited\" の印が付きます)",

		// the state machine seen from outside (ui/diagram.ExplainOutside)
		"Waiting for the agent's next model call: its person talks to it in its own terminal.":                      "エージェントの次のモデル呼び出しを待っています: 利用者はエージェント自身の端末で話しかけます。",
		"The agent assembled its request: what it sends is in the Raw payload.":                                     "エージェントがリクエストを組み立てました: 送る内容は生ペイロードにあります。",
		"THINK: the agent's request goes to the model; the tap holds it until space, then the reply.":               "THINK: エージェントのリクエストがモデルへ送られます。タップはspace までそれを保留し、次に応答を保留します。",
		"The agent decides on its tool calls itself: a tap sees no rule, only the result its next request carries.": "ツール呼び出しの可否はエージェント自身が決めます: タップにはルールは見えず、次のリクエストが運ぶ結果だけが見えます。",
		"The agent may ask its person here: a tap does not see that.":                                               "エージェントはここで利用者に尋ねることがあります: タップからは見えません。",
		"ACT: the agent runs the tool itself, out of the tap's sight.":                                              "ACT: エージェントがツールを自分で実行します。タップからは見えません。",
		"OBSERVE: the tool's result came back in the agent's next request.":                                         "OBSERVE: ツールの結果がエージェントの次のリクエストで戻ってきました。",
		"OBSERVE (error): the agent sent back a failure, or no result for a call.":                                  "OBSERVE(エラー): エージェントが失敗を返したか、呼び出しに結果を返しませんでした。",
		"The agent shows the answer to its person: a tap does not see that.":                                        "エージェントが答えを利用者に見せます: タップからは見えません。",
		"The call failed: the agent deals with it itself (it may retry).":                                           "呼び出しが失敗しました: エージェントが自分で対処します(再試行することもあります)。",

		// glassbox --replay of a tap's cassette
		"this cassette was recorded from glassbox's own agent (%s), not by a tap":                         "このカセットは glassbox 自身のエージェント(%s)を記録したもので、タップのものではありません",
		"the cassette holds no model call to replay":                                                      "カセットに再生できるモデル呼び出しがありません",
		"the recording ends here: its %d calls were played back":                                          "記録はここまでです: %d 件の呼び出しを再生しました",
		"replaying the tap's cassette %s: the agent's calls as they were recorded — no agent, no network": "タップのカセット %s を再生しています: 記録されたとおりのエージェントの呼び出しです — エージェントもネットワークも使いません",
		"space sends each recorded request and delivers its recorded reply · c plays the rest · w edits a request (the reply stays the recorded one, and the difference is flagged)": "space で記録されたリクエストを送り、記録された応答を届けます · c で残りを再生します · w でリクエストを編集します(応答は記録されたままで、違いには印が付きます)",

		// the headless trace
		"inferred: not on the wire": "推定: 通信には現れません",
		"the agent shows its user the answer (inferred: a tap does not see it)": "エージェントが利用者に答えを見せます(推定: タップからは見えません)",

		// another agent's iteration: its limit is its own
		"iteration %d": "反復 %d",
	})
}
