package lang

// Following the instructor: the broadcast, glassbox follow, --broadcast.
func init() {
	register(map[string]string{
		// glassbox follow (main.go)
		"Follows an instructor's broadcast (glassbox serve --instruct, glassbox --broadcast) in your own glass box, read only. ADDR is HOST or HOST:PORT (port 2222). The room is recognised by its fingerprint or your known_hosts; the workshop passphrase is asked.": "講師の配信（glassbox serve --instruct、glassbox --broadcast）に、自分のグラスボックスで読み取り専用でついていきます。ADDR は HOST か HOST:PORT（ポート 2222）。教室はフィンガープリントか known_hosts で確かめ、教室の合言葉を尋ねます。",
		"unexpected argument %q (one room at a time)":                        "余分な引数 %q があります（教室は一度に 1 つです）",
		"the glass box needs a terminal (and the passphrase is asked on it)": "グラスボックスには端末が必要です（合言葉もそこで尋ねます）",
		"workshop passphrase for %s: ":                                       "%s の教室の合言葉: ",

		// The broadcast's notes to a follower (broadcast.go)
		"you fell %d steps behind the instructor: caught up from the broadcast, every step kept": "講師から %d ステップ遅れました。配信から追いつきました（ステップはすべてそろっています）",
		"its last step #%d is not one the instructor broadcast":                                  "最後のステップ #%d は講師が配信したものではありません",
		"it has no step after #%d": "#%d より後のステップがありません",
		"you fell %d steps behind the instructor; their session file could not be read (%v), so you caught up from the broadcast, every step kept": "講師から %d ステップ遅れました。講師のセッションファイルが読めなかったため（%v）、配信から追いつきました（ステップはすべてそろっています）",
		"you fell %d steps behind the instructor: resynchronised from their session file, steps #%d–#%d":                                           "講師から %d ステップ遅れました。講師のセッションファイルから同期し直しました（ステップ #%d〜#%d）",

		// Announcing a broadcast (command.go, follow_room.go, serve.go)
		"glassbox: broadcasting on %s (up to %d followers)":          "glassbox: %s で配信中（フォロワーは %d 人まで）",
		"or, with glassbox:     ":                                    "glassbox でなら:       ",
		"q in the glass box ends the broadcast":                      "グラスボックスで q を押すと配信を終えます",
		"a broadcast follows one run; it does not go with --compare": "配信できる実行は 1 つです。--compare とは一緒に使えません",
		"cannot listen on %s: %v":                                    "%s で待ち受けられません: %v",
		"your run is broadcast: whoever follows sees every step you take and the model's reply as it streams in (q here ends the broadcast)":         "あなたの実行は配信されています。ついてくる人には、あなたが進めるすべてのステップと、ストリームで届いていくモデルの返答が見えます（ここで q を押すと配信を終えます）",
		"this is a broadcast to follow, with no glass boxes of its own: connect as 'follow' (ssh -p PORT follow@HOST, or glassbox follow HOST:PORT)": "これはついていくための配信で、自分のグラスボックスはありません。'follow' として接続してください（ssh -p PORT follow@HOST、または glassbox follow HOST:PORT）",

		// The follow stream and its client (follow_wire.go, follow_client.go)
		"the follow stream is for the user 'follow' of a room with an instructor": "フォローのストリームは、講師のいる教室のユーザー 'follow' のためのものです",
		"the follow stream is damaged: %s":                                        "フォローのストリームが壊れています: %s",
		"it does not start with the instructor's run":                             "講師の実行の情報で始まっていません",
		"it ended before the steps taken so far":                                  "これまでのステップが届く前に終わりました",
		"the broadcast stopped: %v":                                               "配信が止まりました: %v",
		"the broadcast's step #%d: %v":                                            "配信のステップ #%d: %v",
		"a line with nothing in it":                                               "中身のない行があります",
		"the connection to the room closed":                                       "教室との接続が切れました",
		"%s ─%s─▶ %s is not an edge of the state machine":                         "%s ─%s─▶ %s は状態機械にないエッジです",
		"a step with a negative count":                                            "負の数を持つステップがあります",
		"cannot reach %s: %v":                                                     "%s に接続できません: %v",
		"%s refused the passphrase (the workshop passphrase is the one glassbox serve printed; a room of keys only is followed with ssh -p PORT follow@HOST)": "%s が合言葉を受け付けませんでした（教室の合言葉は glassbox serve が表示したものです。鍵だけの教室には ssh -p PORT follow@HOST でついていきます）",
		"%s does not broadcast (is it glassbox serve --instruct or glassbox --broadcast?): %v":                                                                "%s は配信していません（glassbox serve --instruct か glassbox --broadcast ですか？）: %v",
		"the server at %s has the host key %s, not the one you pinned (%s): someone may be between you and the room; do not go on, ask the instructor":        "%s のサーバーのホスト鍵は %s で、指定したもの（%s）と違います。あなたと教室の間に誰かいるかもしれません。先に進まず、講師に尋ねてください",
		"the server at %s has the host key %s, not the one %s knows for it: someone may be between you and the room; do not go on, ask the instructor":        "%s のサーバーのホスト鍵は %s で、%s に載っているものと違います。あなたと教室の間に誰かいるかもしれません。先に進まず、講師に尋ねてください",
		"cannot read the known_hosts file %s: %v": "known_hosts ファイル %s を読めません: %v",
		"the server at %s is not known: its host key is %s. Check it against the fingerprint the instructor reads out (glassbox serve prints it), then run again with --fingerprint %s": "%s のサーバーは知らないサーバーです。ホスト鍵は %s です。講師が読み上げるフィンガープリント（glassbox serve が表示します）と照らし合わせてから、--fingerprint %s を付けてもう一度実行してください",
		"the instructor at %s": "%s の講師",
		"the instructor":       "講師",
	})
}
