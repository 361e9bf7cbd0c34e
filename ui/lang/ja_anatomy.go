package lang

// The anatomy of a request (providers/anatomy) and one turn in every
// dialect (providers/rosetta): the rules of the token figures, the rows'
// captions, what a dialect cannot carry.
func init() {
	register(map[string]string{
		"about one token per 4 ASCII characters, and one per other character, of the text in the part's JSON strings (keys and values, escapes decoded); framing and settings count none": "部分の JSON 文字列（キーと値、エスケープは戻したもの）に含まれる文字のうち、ASCII 文字 4 つでおよそ 1 トークン、それ以外の文字は 1 文字で 1 トークン。枠組みと設定は 0",
		"the offline simulation reports a quarter of the request's bytes; it has no tokenizer":                                                                                            "オフラインシミュレーションは、リクエストのバイト数の 4 分の 1 を報告します。トークナイザーは持っていません",

		"Gemini keeps the system prompt out of the conversation, in systemInstruction; the chat APIs send it as the first message, with role system. JSON mode's system message is longer: it also describes every tool and the one reply shape the model must write.":                           "Gemini はシステムプロンプトを会話の外、systemInstruction に置きます。チャット型の API は、role が system の最初のメッセージとして送ります。JSON モードのシステムメッセージは長くなります。すべてのツールの説明と、モデルが書くべきただ一つの返答の形も含むからです。",
		"Gemini, OpenAI and Ollama declare tools in a field of their own, each parameter list a JSON Schema (Gemini's is an OpenAPI subset, its types in capitals). JSON mode has no tool field: the tools are paragraphs of the system prompt, and the call is parsed out of the model's text.": "Gemini、OpenAI、Ollama は、ツールを専用のフィールドで宣言し、引数の一覧はそれぞれ JSON Schema です（Gemini のものは OpenAPI の一部で、型名は大文字）。JSON モードにはツールのフィールドがありません。ツールはシステムプロンプトの段落になり、呼び出しはモデルの書いたテキストから取り出します。",
		"A person's words travel the same way in all four: a message with role user (in Gemini, a Content with one text part).":                                                                                                                                                                  "人の言葉は 4 つとも同じ形で送られます。role が user のメッセージです（Gemini では、テキストの part を 1 つ持つ Content）。",
		"Gemini sends the call back as a functionCall part, its arguments an object; OpenAI as tool_calls with an id and the arguments as a JSON string; Ollama as tool_calls with the arguments as an object; JSON mode as the text the model wrote, {\"tool_call\": …}.":                       "呼び出しを送り返す形: Gemini は functionCall の part（引数はオブジェクト）、OpenAI は id 付きの tool_calls（引数は JSON の文字列）、Ollama は tool_calls（引数はオブジェクト）、JSON モードはモデルが書いたテキスト {\"tool_call\": …} です。",
		"Gemini returns a result as a functionResponse part of a user turn; OpenAI as a message with role tool and the call's id; Ollama as role tool with tool_name; JSON mode as a user message {\"tool_result\": …}, since the model has no tool role to read.":                               "結果の返し方: Gemini は user の番の functionResponse の part、OpenAI は role が tool で呼び出しの id を持つメッセージ、Ollama は tool_name 付きの role tool、JSON モードは user のメッセージ {\"tool_result\": …} です。モデルが読める tool の役割がないからです。",
		"A final answer is text in all four; JSON mode's is the reply object the model wrote, {\"response\": …}.":                                                                                                                                                                                "最終回答は 4 つともテキストです。JSON モードでは、モデルが書いた返答のオブジェクト {\"response\": …} になります。",

		"the thought signature: only Gemini carries it, and Gemini 3 refuses a conversation without it": "思考の署名（thought signature）: 運べるのは Gemini だけで、Gemini 3 は署名のない会話を受け付けません",
		"the model's reasoning: this API has no place to send it back":                                  "モデルの推論: この API には送り返す場所がありません",

		"step %d: %s has %d steps":         "ステップ %d: %s のステップは %d 個です",
		"%s holds no run":                  "%s には実行が 1 つもありません",
		"step %d of %s made no model call": "%[2]s のステップ %[1]d はモデルを呼び出していません",
		"show the model call of step N part by part (default: every call, by kind)": "ステップ N のモデル呼び出しを部分ごとに示す（省略時: すべての呼び出しを種類ごとに）",
		"print the figures as one JSON document":                                    "数値を 1 つの JSON 文書として出力する",
		"Usage: glassbox anatomy SESSION|CASSETTE [--step N] [--json]\n\nWhat each model call's request is made of — system prompt, tools, each message, settings — with the bytes and tokens of every part, what each call keeps from the one before (what a prompt cache can reuse) and how the requests grow.\nSESSION is an id (see 'glassbox sessions') or a session file; CASSETTE a file written with --record.\n\nFlags:": "使い方: glassbox anatomy SESSION|CASSETTE [--step N] [--json]\n\nモデル呼び出しのリクエストが何でできているか（システムプロンプト、ツール、各メッセージ、設定）を、部分ごとのバイト数とトークン数で示します。各呼び出しが前の呼び出しから何を引き継いだか（プロンプトキャッシュが再利用できる部分）と、リクエストがどう大きくなるかも示します。\nSESSION は ID（'glassbox sessions' を参照）またはセッションファイル、CASSETTE は --record で書いたファイルです。\n\nフラグ:",
		"One turn in every dialect: %s, step %d": "すべての方言で見る 1 ターン: %s のステップ %d",
		"Each request was built by glassbox's own provider for that dialect, through its SDK client, and read back part by part; nothing was sent.": "各リクエストは、その方言用の glassbox 自身のプロバイダーが SDK クライアントを通して組み立て、部分ごとに読み戻したものです。何も送信していません。",
		"system prompt":                     "システムプロンプト",
		"tool declarations":                 "ツールの宣言",
		"message %d: the model's tool call": "メッセージ %d: モデルのツール呼び出し",
		"message %d: the tool result":       "メッセージ %d: ツールの結果",
		"message %d: the model's answer":    "メッセージ %d: モデルの回答",
		"message %d: the user's turn":       "メッセージ %d: 利用者の番",
		"the step whose conversation to show, counted from 1 as in 'glassbox sessions'": "会話を示すステップ。'glassbox sessions' と同じく 1 から数える",
		"Usage: glassbox rosetta SESSION --step N [--format md|html]\n\nThe conversation as it stood at step N, as Gemini, OpenAI chat completions, Ollama's native tools and Llama's JSON mode would each send it, built by glassbox's own providers and laid side by side, part by part.\nSESSION is an id (see 'glassbox sessions') or a session file.\n\nFlags:": "使い方: glassbox rosetta SESSION --step N [--format md|html]\n\nステップ N の時点の会話を、Gemini、OpenAI のチャット補完、Ollama のネイティブツール、Llama の JSON モードがそれぞれどう送るかを、glassbox 自身のプロバイダーで組み立て、部分ごとに並べて示します。\nSESSION は ID（'glassbox sessions' を参照）またはセッションファイルです。\n\nフラグ:",
		"md (Markdown) or html (one self-contained file)":                                             "md（Markdown）または html（単体で読める 1 ファイル）",
		"--format %q: use md or html":                                                                 "--format %q: md か html を指定してください",
		"--step N is needed: the step whose conversation to show, counted from 1":                     "--step N が必要です: 会話を示すステップを 1 から数えて指定してください",
		"step %d: the conversation is still empty":                                                    "ステップ %d: 会話はまだ空です",
		"glassbox anatomy: %s · %d model calls":                                                       "glassbox anatomy: %s · モデル呼び出し %d 回",
		"How the requests grow (bytes sent per call; every call sends the whole conversation again):": "リクエストの大きくなり方（呼び出しごとに送ったバイト数。呼び出しのたびに会話全体を送り直します）:",
		"not a model call of any dialect glassbox reads":                                              "glassbox が読めるどの方言のモデル呼び出しでもありません",
		"not read: %s: %s":      "読めませんでした: %s: %s",
		"Estimated tokens: %s.": "推定トークン数: %s。",
		"No tokenizer for these model families runs offline in Go, so no figure is counted; the provider's own count, when it reports one, is shown beside the estimate.": "これらのモデルファミリーのトークナイザーで、Go でオフラインに動くものはないため、実際に数えた数はありません。プロバイダーが数を報告したときは、推定の横に示します。",
		"call %d":   "呼び出し %d",
		"step %d":   "ステップ %d",
		"%s bytes":  "%s バイト",
		"%d parts":  "%d 部分",
		"total":     "合計",
		"estimated": "推定",
		"reported by the provider: %s input tokens (%s), %s output; estimate %+d": "プロバイダーの報告: 入力 %s トークン（%s）、出力 %s。推定との差 %+d",
		"served from the provider's prompt cache: %s input tokens (%s)":           "プロバイダーのプロンプトキャッシュから: 入力 %s トークン（%s）",
		"since the call before: %d parts kept (%s bytes), %d appended (%s bytes)": "前の呼び出しから: %d 部分はそのまま（%s バイト）、%d 部分を追加（%s バイト）",
		"message %d (%s)": "メッセージ %d（%s）",
		"the cache breaks at %s: %d parts after it changed":                                          "キャッシュは %s で途切れます: そこから %d 部分が変わりました",
		"what each model call's request is made of, what each part costs, and how the requests grow": "モデル呼び出しのリクエストが何でできていて、各部分にどれだけかかり、リクエストがどう大きくなるか",
		"one step's conversation as every dialect would send it, side by side":                       "あるステップの会話を、各方言が送る形で並べて示す",
	})
}
