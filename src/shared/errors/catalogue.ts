import { logError } from './log'
/**
 * The error catalogue as data (product.md §8, providers.md §8): every error type with its
 * HTTP-like status and a user text in en and zh-CN that says what to do about it.
 * `statusForErrorType` is the status mapping on the server response; `describeError`
 * gives the localised text the UI and CLI show.
 */

export type Locale = 'en' | 'zh-CN'

export interface ErrorText {
  /** What happened, in the user's words. */
  title: string
  /** The fix we suggest. */
  fix: string
}

export interface CatalogueEntry {
  status: number
  /** Safe to retry automatically before the first byte. */
  retryable?: boolean
  text: Record<Locale, ErrorText>
}

const t = (status: number, en: [string, string], zh: [string, string], retryable?: boolean): CatalogueEntry => ({
  status,
  retryable,
  text: { en: { title: en[0], fix: en[1] }, 'zh-CN': { title: zh[0], fix: zh[1] } }
})

export const ERROR_CATALOGUE = {
  // ---- providers.md §8 and product.md §8 (runtime errors)
  AgentRuntimeError: t(470, ['The model runtime failed.', 'Try again; if it keeps failing, report the detail below.'], ['模型运行时出错。', '请重试；如仍失败，请反馈下方详情。']),
  ProviderBizError: t(471, ['The provider returned an error.', 'Read the provider message below; check the model and parameters, then retry.'], ['服务商返回了错误。', '请查看下方服务商信息，检查模型与参数后重试。']),
  LocationNotSupportError: t(403, ['This provider is not available in your region.', 'Use a proxy base URL in a supported region, or pick another provider.'], ['该服务商不支持你所在的地区。', '请使用受支持地区的代理地址，或更换服务商。']),
  QuotaLimitReached: t(429, ['The request limit has been reached.', 'Wait a moment and retry, or raise the limit in the provider console.'], ['已达到请求频率上限。', '请稍后重试，或在服务商控制台提高限额。'], true),
  InsufficientQuota: t(429, ['Your account quota or balance is used up.', 'Top up or upgrade the plan in the provider console.'], ['账户额度或余额已用完。', '请在服务商控制台充值或升级套餐。']),
  ModelNotFound: t(404, ['The model does not exist or your key cannot use it.', 'Check the model id, or enable access to it in the provider console.'], ['模型不存在或当前密钥无权访问。', '请检查模型 ID，或在服务商控制台开通该模型。']),
  PermissionDenied: t(403, ['The provider denied access.', 'Check that your key has permission for this model (some need a paid plan).'], ['服务商拒绝访问。', '请确认密钥有权使用该模型（部分模型需要付费套餐）。']),
  ExceededContextWindow: t(400, ['The conversation is longer than the model can read.', 'Shorten the history or pick a model with a larger context window.'], ['对话内容超出模型的上下文长度。', '请缩短历史消息，或选择上下文更长的模型。']),
  InvalidProviderAPIKey: t(401, ['The API key is missing or wrong.', 'Enter a valid key for this provider in Settings.'], ['API 密钥缺失或不正确。', '请在设置中填写该服务商的有效密钥。']),
  NoOpenAIAPIKey: t(401, ['No OpenAI API key is set.', 'Add your OpenAI key in Settings.'], ['未设置 OpenAI API 密钥。', '请在设置中添加 OpenAI 密钥。']),
  InvalidOllamaArgs: t(401, ['The Ollama settings are invalid.', 'Check the Ollama base URL (for example http://127.0.0.1:11434).'], ['Ollama 配置无效。', '请检查 Ollama 服务地址（例如 http://127.0.0.1:11434）。']),
  OllamaBizError: t(472, ['Ollama returned an error.', 'Read the message below; check that the model is pulled.'], ['Ollama 返回了错误。', '请查看下方信息，并确认模型已下载。']),
  OllamaServiceUnavailable: t(472, ['Ollama is not reachable.', 'Check that the Ollama service runs and that cross-origin access (OLLAMA_ORIGINS) is set.'], ['无法连接 Ollama。', '请确认 Ollama 服务已启动，并已配置跨域访问（OLLAMA_ORIGINS）。']),
  InvalidBedrockCredentials: t(401, ['The AWS Bedrock credentials are invalid.', 'Enter both the access key id and the secret access key, and check the region.'], ['AWS Bedrock 凭证无效。', '请同时填写 Access Key ID 与 Secret Access Key，并检查区域。']),
  InvalidVertexCredentials: t(401, ['The Vertex AI credentials are invalid.', 'Check the service-account JSON, project and location.'], ['Vertex AI 凭证无效。', '请检查服务账号 JSON、项目与区域。']),
  StreamChunkError: t(500, ['The reply stream could not be read.', 'The provider sent a malformed chunk; retry, or ask the provider to fix it.'], ['无法解析回复流。', '服务商发送了格式错误的数据块；请重试或联系服务商修复。']),
  InvalidGithubToken: t(401, ['The GitHub token is invalid.', 'Create a personal access token with models access and enter it in Settings.'], ['GitHub 令牌无效。', '请创建具有 models 权限的个人访问令牌并在设置中填写。']),
  ConnectionCheckFailed: t(400, ['The connection check failed.', 'Check the key, and that a proxy base URL ends with /v1.'], ['连接检查失败。', '请检查密钥，且代理地址需以 /v1 结尾。']),
  UnknownChatFetchError: t(500, ['The request failed for an unknown reason.', 'Check your network and retry.'], ['请求因未知原因失败。', '请检查网络后重试。']),
  CreateMessageError: t(500, ['The message could not be sent.', 'Copy the content and send it again.'], ['消息发送失败。', '请复制内容后重新发送。']),
  // ---- product.md §8 (app-level named errors). Hosted-service errors (InvalidClerkUser,
  // SubscriptionKeyMismatch, SystemTimeNotMatchError, FreePlanLimit, SubscriptionPlanLimit) are
  // not here: this app has no sign-in, subscriptions or credits (docs/decisions.md).
  InvalidAccessCode: t(401, ['The access password is wrong or empty.', 'Enter the password, or add your own API key.'], ['访问密码不正确或为空。', '请输入密码，或添加自定义 API 密钥。']),
  PluginMarketIndexNotFound: t(404, ['The plugin index was not found.', 'Check the plugin market address.'], ['未找到插件索引。', '请检查插件市场地址。']),
  PluginMarketIndexInvalid: t(490, ['The plugin index is invalid.', 'Check the plugin market address.'], ['插件索引无效。', '请检查插件市场地址。']),
  PluginMetaNotFound: t(401, ['The plugin metadata was not found.', 'Reinstall the plugin.'], ['未找到插件元数据。', '请重新安装插件。']),
  PluginMetaInvalid: t(491, ['The plugin metadata is invalid.', 'Reinstall the plugin.'], ['插件元数据无效。', '请重新安装插件。']),
  PluginManifestNotFound: t(492, ['The plugin manifest was not found.', 'Check the manifest URL.'], ['未找到插件描述文件。', '请检查描述文件地址。']),
  PluginManifestInvalid: t(493, ['The plugin manifest is invalid.', 'Check the manifest against the plugin schema.'], ['插件描述文件无效。', '请按插件规范检查描述文件。']),
  PluginApiNotFound: t(404, ['The plugin API was not found.', 'Check the plugin version.'], ['未找到插件接口。', '请检查插件版本。']),
  PluginApiParamsError: t(400, ['The plugin was called with wrong arguments.', 'Retry; if it persists, report it to the plugin author.'], ['插件调用参数错误。', '请重试；如仍出错请反馈插件作者。']),
  PluginSettingsInvalid: t(422, ['The plugin settings are incomplete.', 'Open the plugin settings and fill in the required fields.'], ['插件设置不完整。', '请在插件设置中填写必填项。']),
  PluginServerError: t(500, ['The plugin server returned an error.', 'Retry later.'], ['插件服务端出错。', '请稍后重试。']),
  PluginGatewayError: t(502, ['The plugin gateway failed.', 'Retry later.'], ['插件网关出错。', '请稍后重试。']),
  PluginOpenApiInitError: t(500, ['The plugin OpenAPI client could not start.', 'Check the plugin OpenAPI document.'], ['插件 OpenAPI 客户端初始化失败。', '请检查插件 OpenAPI 文档。']),
  PluginFailToTransformArguments: t(500, ['The model produced invalid plugin arguments.', 'Retry, or use a model better at tool calls.'], ['模型生成的插件参数无效。', '请重试，或换用擅长工具调用的模型。']),
  // ---- product.md §8 (other messages: speech and uploads)
  SpeechServiceError: t(502, ['The speech-to-text or text-to-speech service request failed.', 'Check the voice model and key in Settings, then retry.'], ['语音识别或语音合成服务请求失败。', '请在设置中检查语音模型与密钥后重试。']),
  FileUploadError: t(400, ['Upload failed: a network or storage problem stopped it.', 'Check the file (size, type) and retry.'], ['上传失败：网络或存储出现问题。', '请检查文件大小与类型后重试。']),
  FileExtractionError: t(422, ['The text of this file could not be read.', 'Attach a text, Markdown, code or PDF file with selectable text.'], ['无法读取该文件的文字内容。', '请附加文本、Markdown、代码或含可选中文字的 PDF 文件。']),
  // ---- classification buckets used by the message patterns (error-code-specs.tsv)
  InvalidGithubCopilotToken: t(401, ['No active GitHub Copilot subscription.', 'Check the Copilot subscription of this account.'], ['没有有效的 GitHub Copilot 订阅。', '请检查该账号的 Copilot 订阅。']),
  AccountDeactivated: t(403, ['The provider account is suspended.', 'Contact the provider to reactivate it.'], ['服务商账号已被停用。', '请联系服务商恢复账号。']),
  RateLimitExceeded: t(429, ['Too many requests right now.', 'Wait a moment and retry.'], ['当前请求过于频繁。', '请稍候再试。'], true),
  ProviderServiceUnavailable: t(503, ['The provider is overloaded or down.', 'Retry in a little while.'], ['服务商繁忙或暂不可用。', '请稍后重试。'], true),
  NoAvailableChannel: t(503, ['The proxy has no channel for this model.', 'Pick another model or check the proxy configuration.'], ['代理没有该模型的可用渠道。', '请更换模型或检查代理配置。']),
  CapabilityNotSupported: t(400, ['The model does not support this input.', 'Remove images or tools, or pick a model that supports them.'], ['该模型不支持此类输入。', '请去掉图片或工具，或选择支持的模型。']),
  InvalidRequestFormat: t(400, ['The provider rejected the request as malformed.', 'Check the model name and parameters.'], ['服务商认为请求格式有误。', '请检查模型名称与参数。']),
  ContentModeration: t(451, ['The content was blocked by the safety filter.', 'Rephrase the message.'], ['内容被安全过滤拦截。', '请调整措辞后重试。']),
  ProviderContentPolicyViolation: t(471, ['The provider blocked the reply due to its content policy.', 'Rephrase the message.'], ['服务商因内容政策拦截了回复。', '请调整措辞后重试。']),
  ProviderNetworkError: t(504, ['The provider could not be reached.', 'Check your network or proxy and retry.'], ['无法连接服务商。', '请检查网络或代理后重试。'], true),
  UpstreamGatewayError: t(471, ['A gateway in front of the provider failed.', 'Retry later, or check the proxy.'], ['服务商前置网关出错。', '请稍后重试或检查代理。'], true),
  UpstreamMalformedResponse: t(471, ['The provider sent an unreadable reply.', 'Retry; if it persists, contact the provider.'], ['服务商返回了无法解析的内容。', '请重试；如仍出错请联系服务商。']),
  UpstreamHttpError: t(471, ['The provider returned an HTTP error without detail.', 'Retry, and check the provider status page.'], ['服务商返回了无详情的 HTTP 错误。', '请重试，并查看服务商状态页。']),
  OperationInactivityTimeout: t(504, ['The provider went silent mid-reply.', 'Retry; raise the idle timeout for slow models.'], ['服务商在回复中途长时间无响应。', '请重试；慢速模型可调大空闲超时。']),
  UserConfigError: t(400, ['The provider settings are incomplete or wrong.', 'Check the base URL and other settings of this provider.'], ['服务商配置不完整或有误。', '请检查该服务商的地址等设置。']),
  DatabasePersistError: t(500, ['Saving to the local database failed.', 'Check free disk space and retry.'], ['写入本地数据库失败。', '请检查磁盘空间后重试。']),
  StateStorePersistError: t(500, ['Saving state failed.', 'Retry.'], ['保存状态失败。', '请重试。']),
  StateStoreReadError: t(500, ['Reading state failed.', 'Retry.'], ['读取状态失败。', '请重试。']),
  ContextEnginePipelineError: t(500, ['Preparing the conversation failed.', 'Retry; report it if it persists.'], ['准备对话上下文失败。', '请重试；如仍出错请反馈。']),
  // ---- the bridge's own errors (src/shared/errors/app-error.ts BridgeErrorType, handlers)
  ValidationError: t(400, ['The request was not valid.', 'The detail names the field that is wrong; correct it and try again.'], ['请求内容无效。', '详情中写明了有误的字段，请修改后重试。']),
  UnknownProcedure: t(404, ['This action does not exist in this version.', 'Reload the window; if it persists, update Switchboard.'], ['此版本中不存在该操作。', '请重新加载窗口；如仍出现，请更新 Switchboard。']),
  UnknownStream: t(404, ['That reply or task is no longer running.', 'It finished or was cancelled; reload to see its result.'], ['该回复或任务已不在运行。', '它已完成或已取消，请刷新查看结果。']),
  InternalError: t(500, ['Something went wrong inside Switchboard.', 'Try again; if it keeps happening, report the detail below.'], ['Switchboard 内部出错。', '请重试；如反复出现，请反馈下方详情。']),
  BridgeDisconnected: t(503, ['The window lost its connection to Switchboard.', 'Wait a moment for it to reconnect, or reload the window.'], ['窗口与 Switchboard 的连接已断开。', '请稍候自动重连，或重新加载窗口。'], true),
  DataNotReady: t(503, ['Your data is still opening.', 'Wait a moment and try again.'], ['数据仍在加载中。', '请稍候再试。'], true),
  NotFound: t(404, ['That item no longer exists.', 'It may have been deleted; refresh the list.'], ['该项目已不存在。', '它可能已被删除，请刷新列表。']),
  InvalidImageParams: t(401, ['Some image settings are outside what this model accepts.', 'Adjust the settings named below to the allowed values.'], ['部分图片参数超出了该模型允许的范围。', '请按下方提示将参数调整为允许的值。']),
  // ---- the catalogue's own (src/shared/catalogue/errors.ts)
  UnknownProvider: t(404, ['There is no provider with that id.', 'Pick a provider from the list; the detail names the known ids.'], ['不存在该服务商 ID。', '请从列表中选择服务商；详情中列出了可用的 ID。']),
  InvalidCatalogueData: t(401, ['The built-in model list is damaged.', 'Reinstall Switchboard; report it if it persists.'], ['内置模型列表已损坏。', '请重新安装 Switchboard；如仍出现请反馈。']),
  // ---- pricing (src/shared/pricing/types.ts PricingError)
  NoPricing: t(404, ['This model has no price in the catalogue.', 'No cost is shown for it; check the provider\'s price list.'], ['该模型在目录中没有价格。', '不显示其费用，请查看服务商价目表。']),
  NoImagePricing: t(404, ['This image model has no price in the catalogue.', 'No cost is shown for it; check the provider\'s price list.'], ['该图片模型在目录中没有价格。', '不显示其费用，请查看服务商价目表。']),
  InvalidPricing: t(401, ['The price data of this model is malformed.', 'The detail names the broken entry; report it so the catalogue can be fixed.'], ['该模型的价格数据格式有误。', '详情中写明了出错的条目，请反馈以修正目录。']),
  UnsupportedPricing: t(422, ['This model is priced in a way Switchboard cannot compute.', 'No cost is shown for that part; check the provider\'s price list.'], ['该模型的计价方式暂不支持计算。', '该部分不显示费用，请查看服务商价目表。']),
  MissingPricingParams: t(422, ['A price depends on a setting the request did not say.', 'The cost of that part is left out; report it if it looks wrong.'], ['某项价格取决于请求未提供的参数。', '该部分费用未计入；如有误请反馈。']),
  PriceNotFound: t(404, ['No price matches this request\'s settings.', 'The cost of that part is left out; report it if it looks wrong.'], ['没有与本次请求参数匹配的价格。', '该部分费用未计入；如有误请反馈。']),
  // ---- the local data store (src/core/store/errors.ts StoreErrorType)
  DatabaseNewerThanApp: t(409, ['Your data was saved by a newer Switchboard.', 'Update Switchboard to open it; nothing was changed.'], ['数据由更新版本的 Switchboard 保存。', '请更新 Switchboard 后打开；数据未被改动。']),
  DatabaseCorrupt: t(500, ['The local database is damaged.', 'Restart Switchboard: it restores the newest backup.'], ['本地数据库已损坏。', '请重启 Switchboard，它会恢复最新的备份。']),
  DiskFull: t(507, ['The disk is full, so the change was not saved.', 'Free some space and try again.'], ['磁盘已满，修改未保存。', '请清理磁盘空间后重试。']),
  DataFolderReadOnly: t(500, ['Switchboard cannot write to its data folder.', 'Make the folder writable, or start with another data folder.'], ['Switchboard 无法写入数据文件夹。', '请使该文件夹可写，或使用其他数据文件夹启动。']),
  DatabaseBusy: t(503, ['The database is in use by another program.', 'Close the other program (perhaps a second Switchboard) and try again.'], ['数据库正被其他程序占用。', '请关闭其他程序（可能是另一个 Switchboard）后重试。'], true),
  ImportFailed: t(400, ['The import failed.', 'The detail says why; check the file and try again.'], ['导入失败。', '详情中写明了原因，请检查文件后重试。']),
  FileIncompatible: t(400, ['This file was exported by a newer version.', 'Update Switchboard, then import it again.'], ['该文件由更新的版本导出。', '请更新 Switchboard 后重新导入。']),
  StorageError: t(500, ['Switchboard could not read or write its data folder.', 'Check the disk and the folder\'s permissions, then try again.'], ['Switchboard 无法读写数据文件夹。', '请检查磁盘与文件夹权限后重试。']),
  // ---- data safety (src/core/store: lock, damaged rows, streaming writer, import/export)
  DataFolderInUse: t(409, ['Another Switchboard is using this data folder.', 'Switch to the window that is already open, or close the other program first.'], ['另一个 Switchboard 正在使用该数据文件夹。', '请切换到已打开的窗口，或先关闭另一个程序。']),
  MessageDamaged: t(500, ['This message is damaged in the database.', 'What could be recovered is shown; the rest of the conversation is unaffected.'], ['该消息在数据库中已损坏。', '已显示可恢复的内容，对话的其余部分不受影响。']),
  ReplyChangedElsewhere: t(409, ['This reply was changed by another Switchboard process.', 'Close the other process and regenerate the reply.'], ['该回复已被另一个 Switchboard 进程修改。', '请关闭另一个进程后重新生成回复。']),
  StoreClosed: t(503, ['Your data was closed before this reply was saved.', 'Start Switchboard again; the reply is marked as interrupted.'], ['保存此回复前数据已关闭。', '请重新启动 Switchboard，该回复将标记为已中断。']),
  ImportBusy: t(409, ['Another import is running.', 'Wait for it to finish or cancel it.'], ['另一个导入正在进行。', '请等待其完成或取消。'], true),
  ImportCancelled: t(499, ['The import was cancelled.', 'Nothing was changed.'], ['导入已取消。', '数据未被改动。']),
  ExportCancelled: t(499, ['The export was cancelled.', 'No file was written.'], ['导出已取消。', '未写入任何文件。']),
  // ---- knowledge bases (src/core/knowledge)
  EmbeddingDimensionMismatch: t(422, ['The embedding model returned vectors of another size than this knowledge base holds.', 'Pick the model it was built with, or change its model so everything is embedded again.'], ['嵌入模型返回的向量维度与该知识库不一致。', '请选择构建时使用的模型，或更换模型以重新嵌入全部内容。']),
  // ---- the installed app (src/main, src/shared/errors/native-load-error.ts, app.update.*)
  UnsupportedSystem: t(500, ['This system is too old for Switchboard.', 'Switchboard needs glibc 2.34 or newer (Ubuntu 22.04, Debian 12, Fedora 35, RHEL 9 or later); its built-in engine also needs the C++ runtime of GCC 12 (Fedora 36, RHEL 10 or later).'], ['此系统版本过旧，无法运行 Switchboard。', 'Switchboard 需要 glibc 2.34 或更新版本（Ubuntu 22.04、Debian 12、Fedora 35、RHEL 9 或更新）；内置引擎还需要 GCC 12 的 C++ 运行库（Fedora 36、RHEL 10 或更新）。']),
  UpdatesUnavailable: t(501, ['Updates are not available here.', 'Browser mode and checkouts update with git; the installed desktop app updates itself.'], ['此处无法更新。', '浏览器模式与源码检出请用 git 更新；安装版桌面应用会自行更新。']),
  // ---- the built-in engine (src/core/engine): not named "Invalid…", which §8 makes a 401 (a bad key)
  ModelFileUnusable: t(422, ['This model file cannot be used.', 'The detail names the file and what is wrong with it; download it again, or remove it in Local models.'], ['该模型文件无法使用。', '详情中写明了文件及其问题；请重新下载，或在“本地模型”中将其移除。']),
  // ---- the model library (src/core/models-library)
  ModelLibraryError: t(400, ['The model could not be found, checked or downloaded.', 'The detail says why and what to do (a token, a smaller quantisation, free space).'], ['无法查找、检查或下载该模型。', '详情中写明了原因与解决办法（令牌、更小的量化版本或释放空间）。']),
  // ---- sync (src/core/sync)
  SyncUnavailable: t(501, ['Sync is not available here.', 'Use the desktop app or the command-line tool to set up sync.'], ['此处无法使用同步。', '请在桌面应用或命令行工具中设置同步。']),
  SyncNotSetUp: t(409, ['Sync is not set up on this device.', 'Choose a store and a passphrase in Settings → Sync.'], ['此设备尚未设置同步。', '请在“设置 → 同步”中选择存储位置并设置同步密码。']),
  SyncWrongPassphrase: t(401, ['The sync passphrase is not the one this store was set up with.', 'Type the passphrase used on your other devices; nothing was merged.'], ['同步密码与该存储设置时使用的不一致。', '请输入其他设备上使用的同步密码；未合并任何数据。']),
  SyncStoreUnreachable: t(503, ['The sync store cannot be reached.', 'Your changes are kept and sent when it is back; check the address and the network.'], ['无法连接同步存储。', '你的更改已保留，恢复连接后会自动发送；请检查地址与网络。'], true),
  SyncStoreAuth: t(401, ['The sync store refused the credentials.', 'Check the user, key or password in Settings → Sync.'], ['同步存储拒绝了凭据。', '请在“设置 → 同步”中检查用户名、密钥或密码。']),
  SyncStoreFull: t(507, ['The sync store is full.', 'Free space or raise the quota of the store; your changes are kept until then.'], ['同步存储空间已满。', '请释放空间或提高存储配额；在此之前你的更改会被保留。']),
  SyncStoreInvalid: t(400, ['The sync store does not exist or its address is wrong.', 'Check the bucket, folder, database or address in Settings → Sync.'], ['同步存储不存在或地址有误。', '请在“设置 → 同步”中检查存储桶、文件夹、数据库或地址。']),
  SyncStoreFailed: t(502, ['The sync store failed.', 'The detail gives the store\'s own words; try again later.'], ['同步存储出错。', '详情中给出了存储返回的信息，请稍后重试。'], true),
  SyncDeviceForgotten: t(410, ['This device was removed from sync on another device.', 'Choose “Join again as a new device” in Settings → Sync; what is on this device is kept.'], ['此设备已在另一台设备上被移出同步。', '请在“设置 → 同步”中选择“以新设备身份重新加入”；此设备上的内容会保留。']),
  SyncTampered: t(422, ['A change in the sync store failed its integrity check and was refused.', 'It was not merged; the detail names it. Check who can write to the store, and delete it there: this warning goes once it is gone.'], ['同步存储中的一项更改未通过完整性校验，已被拒绝。', '该更改未被合并，详情中写明了是哪一项；请检查谁能写入该存储，并在存储中删除它：删除后此提示即会消失。']),
  SyncMissing: t(409, ['Changes another device wrote are missing from the sync store.', 'What came after them was merged. The device that wrote them sends them again at its next sync; if it no longer syncs, they cannot be had from the store.'], ['另一台设备写入的更改在同步存储中缺失。', '其后的更改已合并。写入它们的设备会在下次同步时重新发送；如果该设备已不再同步，则无法从存储中取回。']),
  // ---- browser mode (src/server)
  TooManyAttempts: t(429, ['Too many wrong passwords.', 'Wait for the time shown, then try again.'], ['密码错误次数过多。', '请等待所示时间后再试。'], true)
} satisfies Record<string, CatalogueEntry>

export type CatalogueErrorType = keyof typeof ERROR_CATALOGUE

/**
 * Every error type the app raises (AppError.errorType): the catalogue's, which include the
 * bridge's, the pricing's and the store's own, each with en and zh-CN texts.
 */
export type ErrorTypeName = CatalogueErrorType

export const ErrorType = Object.fromEntries(Object.keys(ERROR_CATALOGUE).map((k) => [k, k])) as {
  readonly [K in CatalogueErrorType]: K
}

/**
 * Status mapping on the server response (product.md §8): any type containing "Invalid" is
 * 401, the named groups below, catalogue status for the rest, a numeric type as-is.
 */
export function statusForErrorType(errorType: string | number): number | undefined {
  if (typeof errorType === 'number') return errorType
  if (errorType.includes('Invalid')) return 401
  switch (errorType) {
    case 'NoOpenAIAPIKey':
      return 401
    case 'ExceededContextWindow':
    case 'SubscriptionKeyMismatch':
    case 'SystemTimeNotMatchError':
      return 400
    case 'LocationNotSupportError':
      return 403
    case 'ModelNotFound':
      return 404
    case 'InsufficientQuota':
    case 'QuotaLimitReached':
      return 429
    case 'AgentRuntimeError':
      return 470
    case 'ProviderBizError':
      return 471
    case 'OllamaServiceUnavailable':
    case 'OllamaBizError':
      return 472
  }
  const entry = (ERROR_CATALOGUE as Record<string, CatalogueEntry>)[errorType]
  if (entry) return entry.status
  if (/^\d{3}$/.test(errorType)) return Number(errorType)
  return undefined
}

/** A status outside 200–599 is not a valid HTTP status (product.md §8: logged as an error). */
export const isValidHttpStatus = (status: unknown): status is number =>
  typeof status === 'number' && Number.isInteger(status) && status >= 200 && status <= 599

export function catalogueEntry(errorType: string): CatalogueEntry | undefined {
  return (ERROR_CATALOGUE as Record<string, CatalogueEntry>)[errorType]
}

/**
 * Fixes for the screen the user is already on: in Settings (Test connection, saving a key) a
 * fix must not send them to Settings.
 */
const SETTINGS_FIX: Partial<Record<CatalogueErrorType, [string, string]>> = {
  InvalidProviderAPIKey: ['Enter a valid key for this provider above, then test again.', '请在上方填写该服务商的有效密钥后再测试。'],
  NoOpenAIAPIKey: ['Add your OpenAI key above, then test again.', '请在上方添加 OpenAI 密钥后再测试。'],
  InvalidGithubToken: ['Create a personal access token with models access and enter it above.', '请创建具有 models 权限的个人访问令牌并在上方填写。'],
  SpeechServiceError: ['Check the voice model and its provider key, then retry.', '请检查语音模型及其服务商密钥后重试。'],
  SyncNotSetUp: ['Choose a store and a passphrase above.', '请在上方选择存储位置并设置同步密码。'],
  SyncStoreAuth: ['Check the user, key or password above.', '请检查上方的用户名、密钥或密码。'],
  SyncStoreInvalid: ['Check the bucket, folder, database or address above.', '请检查上方的存储桶、文件夹、数据库或地址。'],
  SyncDeviceForgotten: ['Choose “Join again as a new device” on this page; what is on this device is kept.', '请在本页选择“以新设备身份重新加入”；此设备上的内容会保留。']
}

/** Where an error is shown: the chat (and other pages) or the Settings screen itself. */
export type ErrorScreen = 'app' | 'settings'

/** The user text for an error type; unknown types fall back to the generic provider text. */
export function describeError(errorType: string, locale: Locale = 'en', screen: ErrorScreen = 'app'): ErrorText {
  const entry = catalogueEntry(errorType) ?? ERROR_CATALOGUE.ProviderBizError
  const text = entry.text[locale]
  const inSettings = screen === 'settings' ? SETTINGS_FIX[errorType as CatalogueErrorType] : undefined
  return inSettings ? { title: text.title, fix: inSettings[locale === 'en' ? 0 : 1] } : text
}

/**
 * The status an error answers with (product.md §8): the mapping for known types; an unknown
 * type keeps the status it came with (a numeric type is its own status). A status outside
 * 200–599 is logged as an error, and still returned as it is.
 */
export function resolveErrorStatus(errorType: string | number, incoming?: number): number | undefined {
  const known = typeof errorType === 'number' || catalogueEntry(errorType) !== undefined || errorType.includes('Invalid')
  const status = known ? (statusForErrorType(errorType) ?? incoming) : (incoming ?? statusForErrorType(errorType))
  if (status !== undefined && !isValidHttpStatus(status)) logError(`Error type ${String(errorType)} has the status ${status}, outside 200–599`)
  return status
}

/**
 * The text an error card shows for a whole error, not only its type: a Google block reason
 * titles the card with that reason's own text; an unknown type with an HTTP status uses the
 * status text; everything else the catalogue text of its type.
 */
export function describeAppError(error: { errorType: string; status?: number; detail?: unknown }, locale: Locale = 'en'): ErrorText {
  const detail = (error.detail ?? {}) as { blockReason?: unknown; finishReason?: unknown }
  const reason = typeof detail.blockReason === 'string' ? detail.blockReason : typeof detail.finishReason === 'string' && isGoogleBlockReason(detail.finishReason) ? detail.finishReason : undefined
  if (reason) return { title: googleBlockReasonText(reason, locale), fix: ERROR_CATALOGUE.ContentModeration.text[locale].fix }
  if (!catalogueEntry(error.errorType) && error.status !== undefined) {
    const title = httpStatusText(error.status, locale)
    if (title) return { title, fix: ERROR_CATALOGUE.ProviderBizError.text[locale].fix }
  }
  return describeError(error.errorType, locale)
}

// ---------------------------------------------------------------- HTTP status texts (product.md §8)

const HTTP_TEXT: Record<number, [string, string]> = {
  400: ['Bad request: the provider did not accept the parameters.', '请求参数有误，服务商未接受。'],
  401: ['Unauthorized: the key was rejected.', '未授权：密钥被拒绝。'],
  402: ['Payment required.', '需要付费。'],
  403: ['Forbidden: access to this resource is denied.', '禁止访问：无权访问该资源。'],
  404: ['Not found: the address or model does not exist.', '未找到：地址或模型不存在。'],
  405: ['Method not allowed.', '请求方法不被允许。'],
  406: ['Not acceptable.', '无法满足请求的格式。'],
  407: ['Proxy authentication required.', '需要代理认证。'],
  408: ['Request timeout.', '请求超时。'],
  409: ['Conflict.', '请求冲突。'],
  410: ['Gone: the resource was removed.', '资源已被移除。'],
  411: ['Length required.', '需要内容长度。'],
  412: ['Precondition failed.', '前置条件失败。'],
  413: ['Payload too large.', '请求内容过大。'],
  414: ['URI too long.', '请求地址过长。'],
  415: ['Unsupported media type.', '不支持的媒体类型。'],
  416: ['Range not satisfiable.', '请求范围无效。'],
  417: ['Expectation failed.', '预期条件失败。'],
  418: ["I'm a teapot.", '我是一个茶壶。'],
  421: ['Misdirected request.', '请求被错误转发。'],
  422: ['Unprocessable entity: the parameters are invalid.', '参数无法处理。'],
  423: ['Locked.', '资源被锁定。'],
  424: ['Failed dependency.', '依赖请求失败。'],
  425: ['Too early.', '请求过早。'],
  426: ['Upgrade required.', '需要升级协议。'],
  428: ['Precondition required.', '需要前置条件。'],
  429: ['Too many requests: slow down and retry.', '请求过多，请稍后重试。'],
  431: ['Request header fields too large.', '请求头过大。'],
  451: ['Unavailable for legal reasons.', '因法律原因不可用。'],
  500: ['Internal server error at the provider.', '服务商内部错误。'],
  501: ['Not implemented.', '功能未实现。'],
  502: ['Bad gateway: a proxy in between failed.', '网关错误：中间代理出错。'],
  503: ['Service unavailable: the provider is overloaded or down.', '服务不可用：服务商繁忙或宕机。'],
  504: ['Gateway timeout: the provider did not answer in time.', '网关超时：服务商未及时响应。'],
  505: ['HTTP version not supported.', '不支持的 HTTP 版本。'],
  506: ['Variant also negotiates.', '服务器配置错误。'],
  507: ['Insufficient storage.', '存储空间不足。'],
  508: ['Loop detected.', '检测到循环。'],
  510: ['Not extended.', '需要扩展。'],
  511: ['Network authentication required.', '需要网络认证。'],
  520: ['Unknown error from the origin server.', '源服务器返回未知错误。'],
  521: ['The origin server is down.', '源服务器已宕机。'],
  522: ['Connection to the origin timed out.', '连接源服务器超时。'],
  523: ['The origin is unreachable.', '源服务器不可达。'],
  524: ['A timeout occurred at the origin.', '源服务器处理超时。']
}

export function httpStatusText(status: number, locale: Locale = 'en'): string | undefined {
  const entry = HTTP_TEXT[status]
  return entry ? entry[locale === 'en' ? 0 : 1] : undefined
}

// ---------------------------------------------------------------- Google block reasons

export const GOOGLE_BLOCK_REASONS = ['BLOCKLIST', 'IMAGE_SAFETY', 'LANGUAGE', 'OTHER', 'PROHIBITED_CONTENT', 'RECITATION', 'SAFETY', 'SPII'] as const
export type GoogleBlockReason = (typeof GOOGLE_BLOCK_REASONS)[number]

/**
 * Gemini's block reasons (promptFeedback.blockReason and blocking finishReasons) with their
 * own texts (product.md §8). The English texts are the ones the stream errors carry (pinned by
 * the conformance vectors); the card shows the user's language. IMAGE_PROHIBITED_CONTENT is a
 * newer finishReason beyond the spec's list.
 */
const GOOGLE_BLOCK_TEXT: Record<string, [string, string]> = {
  BLOCKLIST: ['The content includes blocked terms. Please rephrase and try again.', '内容包含被屏蔽的词语，请修改后重试。'],
  IMAGE_SAFETY: ['The generated image was blocked for safety reasons. Please try modifying your request.', '生成的图片因安全原因被拦截，请修改请求后重试。'],
  IMAGE_PROHIBITED_CONTENT: ['The generated image was blocked due to prohibited content. Please modify your request and try again.', '生成的图片因包含违禁内容被拦截，请修改请求后重试。'],
  LANGUAGE: ["The requested language isn't supported. Please try again in a supported language.", '暂不支持所请求的语言，请换用受支持的语言重试。'],
  OTHER: ['The content was blocked for an unknown reason. Please rephrase and try again.', '内容因未知原因被拦截，请修改后重试。'],
  PROHIBITED_CONTENT: ['The content may contain prohibited content. Please adjust it and try again.', '内容可能包含违禁信息，请调整后重试。'],
  RECITATION: ['The content was blocked due to recitation risk. Please use more original wording and try again.', '内容因可能复述受版权保护的材料而被拦截，请使用更原创的表述后重试。'],
  SAFETY: ['The content was blocked for safety reasons. Please adjust it and try again.', '内容因安全原因被拦截，请调整后重试。'],
  SPII: ['The content may include sensitive personal information (SPII). Please remove sensitive details and try again.', '内容可能包含敏感个人信息，请删除敏感信息后重试。'],
  default: ['The content was blocked. Please rephrase and try again.', '内容被拦截，请修改后重试。']
}

export const isGoogleBlockReason = (reason: string): boolean => reason !== 'default' && Object.hasOwn(GOOGLE_BLOCK_TEXT, reason)

/** Localised text for a Google prompt/candidate block reason (providers.md §8); unknown reasons get the default. */
export function googleBlockReasonText(reason: string | undefined, locale: Locale = 'en'): string {
  const entry = (reason !== undefined && isGoogleBlockReason(reason) ? GOOGLE_BLOCK_TEXT[reason] : undefined) ?? GOOGLE_BLOCK_TEXT['default']!
  return entry[locale === 'en' ? 0 : 1]
}

/**
 * The status to show the user: what the provider answered (an HTTP 500 kept in `detail.status`)
 * rather than the catalogue's status for the type (503 for ProviderServiceUnavailable), which
 * named a status the server never sent.
 */
export function shownErrorStatus(error: { status?: number; detail?: unknown }): number | undefined {
  const http = (error.detail as { status?: unknown } | undefined)?.status
  return typeof http === 'number' ? http : error.status
}
