package lang

// A workshop's day (issue 29): what each person in a room may do, the
// room's life cycle, and the smaller things a day in a room showed.
func init() {
	register(map[string]string{
		// Forks, time travel and the Raw payload.
		"forked at step #%d, the present: no step is abandoned and the files stay as they are":                                             "現在のステップ #%d でフォークしました: 破棄したステップはなく、ファイルもそのままです",
		"This step assembled this request; the step after it sent it (] shows what went out and the reply). space returns to the present.": "このステップがこのリクエストを組み立て、次のステップが送信しました (] で送った内容と返答を表示)。space で現在に戻ります。",
		"This request was assembled and never sent: the branch was abandoned here. B (or a step key) returns to the run.":                  "このリクエストは組み立てただけで送信していません: 枝はここで破棄されました。B (またはステップのキー) で実行に戻ります。",
		"There is no response at this step (r shows the request).":                                                                         "このステップにレスポンスはありません (r でリクエストを表示)。",
		"as assembled · response (r)":           "組み立てたまま · レスポンス (r)",
		"as assembled · request (r)":            "組み立てたまま · リクエスト (r)",
		"r shows the %d frame%s the other way.": "r で反対向きの %d フレーム%.0sを表示します。",
		"assistant":                             "アシスタント",
		"(the address is cut here: z on History shows it whole, on one line)": "(ここではアドレスが切れています: 履歴で z を押すと 1 行で全体を表示します)",

		// Who may do what (ui/role).
		"catch up": "追いつく",
		"%s — serve the room that way (glassbox serve --instruct …) and every learner's glass box gets it too":                "%s。教室をその設定で開けば (glassbox serve --instruct …)、受講者全員のグラスボックスも同じになります",
		"ask the instructor — the room's backend is theirs to choose, for every learner, and their key is never shown to you": "講師に頼んでください。教室のバックエンドは講師が受講者全員のために選ぶもので、講師のキーがあなたに見えることはありません",
		"the instructor's choice for the room": "講師が教室のために選んだもの",
		"a room is offline unless its instructor chooses a provider (--provider, --model, --live or --replay)":                                                     "教室は、講師がプロバイダーを選ばない限りオフラインです（--provider、--model、--live、--replay）",
		"You instruct this room: each step you take is broadcast to whoever follows, and R shows the learners.":                                                    "あなたはこの教室の講師です: 進めたステップはフォロワー全員に配信され、R で受講者の一覧を表示します。",
		"You are a learner in this room: this glass box, its session and its workspace are your own, on the instructor's machine; the same name brings them back.": "あなたはこの教室の受講者です: このグラスボックスとそのセッション、ワークスペースは講師のマシン上にあるあなた専用のもので、同じ名前で接続すれば続きから使えます。",
		"You follow the %s's run, read-only: their steps appear here as they take them, and nothing you press reaches their run.":                                  "閲覧のみ: %sの実行を追っています。進めたステップがそのままここに現れます。あなたが押したキーが相手の実行に届くことはありません。",
		"First moves: watch the steps arrive; [ and ] go back and forth in time, space catches up, ? lists your keys, q leaves.":                                   "はじめの操作: ステップが届くのを見ます。[ と ] で時間を行き来し、space で追いつきます。? でキーの一覧、q で退出します。",
		"Press ? for your keys, q to leave.": "? でキーの一覧、q で退出します。",
		"You follow the %s's run, read-only: each step they take appears here, every pane as it was then. [ and ] move back and forward through the steps; space catches up with the latest. Nothing you press reaches their run.": "閲覧のみ: %sの実行を追っています。進めたステップはそれぞれ、そのときのすべてのペインとともにここに現れます。[ と ] でステップを行き来し、space で最新に追いつきます。あなたが押したキーが相手の実行に届くことはありません。",
		"not here: this glass box does not offer that key": "ここでは使えません: このグラスボックスにそのキーはありません",
		"%s (and %d more notes under the welcome)":         "%s (ほかに %d 件のお知らせがウェルカムの下にあります)",
		"This is a trace file another agent left, not a live agent: nothing is sent and nothing runs. Space shows its next transition, i its next model call, c the rest of the turn; [ and ] move back and forward through the steps shown; every pane follows. The steps glassbox cannot see, only infer, say so.": "これは別のエージェントが残したトレースファイルで、動いているエージェントではありません: 何も送られず、何も実行されません。space で次の遷移、i で次のモデル呼び出し、c でターンの残りを表示します。[ と ] で表示済みのステップを行き来し、すべてのペインがそれに従います。glassbox が見えず推測しかできないステップには、そう書いてあります。",
		"not offered here: %s — only a %s run shows it": "ここにはありません: %s — %s の実行でだけ見られます",
		"%s or %s": "%s または %s",
		"A tap stands between another agent and its model: space lets the next held request or reply through, c lets every call pass until a breakpoint, p holds them again. [ and ] move back and forward through the steps; every pane follows. The requests are the agent's: type them in its own terminal.": "タップは別のエージェントとそのモデルの間に立ちます: space で止めている次のリクエストか返答を通し、c でブレークポイントまですべての呼び出しを通し、p でまた止めます。[ と ] でステップを行き来し、すべてのペインがそれに従います。依頼はエージェントのものです: エージェント自身の端末で入力してください。",
		// Leaving and ending the room (ui/glassbox/leave.go, ui/serve/life.go).
		"your run is broadcast: whoever follows sees every step you take and the model's reply as it streams in (q here asks whether to end the room or keep serving it without you)": "あなたの実行は配信されています。ついてくる人には、あなたが進めるすべてのステップと、ストリームで届いていくモデルの返答が見えます（ここで q を押すと、教室を終えるか、あなた抜きで続けるかを尋ねます）",
		"end the room":            "教室を終える",
		"keep serving without me": "自分抜きで教室を続ける",
		"stay":                    "とどまる",
		"not quitting: the room goes on with you":         "終了しません: 教室はあなたと一緒に続きます",
		"%d learner%s %s in the room.":                    "教室には受講者が %d 人%.0s%.0sいます。",
		"%d follower%s %s watching your run.":             "フォロワー %d 人%.0s%.0sがあなたの実行を見ています。",
		"%d learner%s and %d follower%s are in the room.": "教室には受講者 %d 人%.0sとフォロワー %d 人%.0sがいます。",
		"End the room: each learner's glass box closes with a screen that says the room has ended and how to come back. Their sessions stay on this machine: when you serve the room again (the same state folder), each connects the same way and goes on where they were.": "教室を終える: 受講者それぞれのグラスボックスが閉じ、教室が終わったことと戻り方を伝える画面が出ます。セッションはこのマシンに残ります: 教室をもう一度開けば (同じ状態フォルダー)、受講者は同じ方法で接続して続きから進められます。",
		"Keep serving without your glass box: the learners go on working, and followers are told your run has ended. The room goes on in this terminal until Ctrl-C there ends it.":                                                                                          "グラスボックスを閉じて教室を続ける: 受講者は作業を続けられ、フォロワーにはあなたの実行が終わったと伝えます。教室はこの端末で続き、そこで Ctrl-C を押すと終わります。",
		"Either way your own session is kept.":    "どちらでも、あなたのセッションは残ります。",
		"Either way your own session is kept: %s": "どちらでも、あなたのセッションは残ります: %s",
		"Leave the room?":                         "教室を離れますか?",
		"your glass box is closed and your session kept; the room goes on serving the learners — Ctrl-C here ends it": "グラスボックスを閉じ、セッションは残しました。教室は受講者のために続きます — ここで Ctrl-C を押すと終わります",
		"the room's server was stopped":                            "教室のサーバーが止められました",
		"the instructor closed it":                                 "講師が閉じました",
		"Your session is kept on the room's machine.":              "あなたのセッションは教室のマシンに残っています。",
		"Your session is kept on the room's machine, at step #%d.": "あなたのセッションはステップ #%d の状態で教室のマシンに残っています。",
		"the room has ended (%s).":                                 "教室は終わりました (%s)。",
		"When the room is served again, connect the same way and your glass box goes on where it was:": "教室がまた開いたら、同じ方法で接続すると、グラスボックスは続きから始まります:",
		"the room has ended (%s); so has the instructor's broadcast.":                                  "教室は終わりました (%s)。講師の配信も終わりです。",
		"Follow again when the room is served:":                                                        "教室がまた開いたら、もう一度見るには:",
		"the room has %d learners and %d followers, more than this machine was measured to carry (%d cores × %d learners or %d followers each): frames may come late; docs/classroom.md says how many a machine carries": "教室に受講者 %d 人とフォロワー %d 人がいます。このマシンで測った収容数 (%d コア × 1 コアあたり受講者 %d 人またはフォロワー %d 人) を超えているので、画面の更新が遅れることがあります。1 台に収まる人数は docs/ja/classroom.md にあります",
		"the room has ended (%s): %d glass box%s told, every learner's session kept":                                                "教室は終わりました (%s): %d 個%.0sのグラスボックスに伝え、受講者のセッションはすべて残しました",
		"the instructor has left: the room goes on without their glass box; connect with your own name for a glass box of your own": "講師は退出しました: 教室は講師のグラスボックスなしで続いています。自分のグラスボックスを使うには自分の名前で接続してください",
		"the room is ending; ask the instructor when it is served again":                                                            "教室は終了中です。次に開くときは講師に尋ねてください",
	})
}
