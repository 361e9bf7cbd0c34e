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
		"(the address is cut here: z on History shows it whole, on one line)": "(ここではアドレスが切れています: History で z を押すと 1 行で全体を表示します)",

		// Who may do what (ui/role).
		"catch up": "追いつく",
		"%s — serve the room that way (glassbox serve --instruct …) and every learner's glass box gets it too":                "%s。教室をその設定で開けば (glassbox serve --instruct …)、受講者全員のグラスボックスも同じになります",
		"ask the instructor — the room's backend is theirs to choose, for every learner, and their key is never shown to you": "講師に頼んでください。教室のバックエンドは講師が受講者全員のために選ぶもので、講師のキーがあなたに見えることはありません",
		"the instructor's choice for the room": "講師が教室のために選んだもの",
		"You instruct this room: each step you take is broadcast to whoever follows, and R shows the learners.":                                                    "あなたはこの教室の講師です: 進めたステップはフォロワー全員に配信され、R で受講者の一覧を表示します。",
		"You are a learner in this room: this glass box, its session and its workspace are your own, on the instructor's machine; the same name brings them back.": "あなたはこの教室の受講者です: このグラスボックスとそのセッション、ワークスペースは講師のマシン上にあるあなた専用のもので、同じ名前で接続すれば続きから使えます。",
		"You follow the %s's run, read-only: their steps appear here as they take them, and nothing you press reaches their run.":                                  "閲覧のみ: %sの実行を追っています。進めたステップがそのままここに現れます。あなたが押したキーが相手の実行に届くことはありません。",
		"First moves: watch the steps arrive; [ and ] go back and forth in time, space catches up, ? lists your keys, q leaves.":                                   "はじめの操作: ステップが届くのを見ます。[ と ] で時間を行き来し、space で追いつきます。? でキーの一覧、q で退出します。",
		"Press ? for your keys, q to leave.": "? でキーの一覧、q で退出します。",
		"You follow the %s's run, read-only: each step they take appears here, every pane as it was then. [ and ] move back and forward through the steps; space catches up with the latest. Nothing you press reaches their run.": "閲覧のみ: %sの実行を追っています。進めたステップはそれぞれ、そのときのすべてのペインとともにここに現れます。[ と ] でステップを行き来し、space で最新に追いつきます。あなたが押したキーが相手の実行に届くことはありません。",
		"not here: this glass box does not offer that key": "ここでは使えません: このグラスボックスにそのキーはありません",
	})
}
