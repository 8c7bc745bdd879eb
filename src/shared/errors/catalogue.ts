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
  // ---- product.md §8 (app-level named errors)
  InvalidAccessCode: t(401, ['The access password is wrong or empty.', 'Enter the password, or add your own API key.'], ['访问密码不正确或为空。', '请输入密码，或添加自定义 API 密钥。']),
  InvalidClerkUser: t(401, ['You are not signed in.', 'Sign in and try again.'], ['尚未登录。', '请登录后重试。']),
  SystemTimeNotMatchError: t(400, ['Your system clock is wrong.', 'Set the correct date and time, then retry.'], ['系统时间不正确。', '请校准系统时间后重试。']),
  SubscriptionKeyMismatch: t(400, ['The subscription does not match this key.', 'Restore the subscription or contact support.'], ['订阅与密钥不匹配。', '请恢复订阅或联系支持。']),
  FreePlanLimit: t(402, ['The free credits are used up.', 'Upgrade, or set your own model API key.'], ['免费额度已用完。', '请升级套餐，或设置自定义模型 API。']),
  SubscriptionPlanLimit: t(402, ['The plan credits are used up.', 'Upgrade, or set your own model API key.'], ['套餐额度已用完。', '请升级套餐，或设置自定义模型 API。']),
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
  ContextEnginePipelineError: t(500, ['Preparing the conversation failed.', 'Retry; report it if it persists.'], ['准备对话上下文失败。', '请重试；如仍出错请反馈。'])
} satisfies Record<string, CatalogueEntry>

export type CatalogueErrorType = keyof typeof ERROR_CATALOGUE

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

/** The user text for an error type; unknown types fall back to the generic provider text. */
export function describeError(errorType: string, locale: Locale = 'en'): ErrorText {
  const entry = catalogueEntry(errorType) ?? ERROR_CATALOGUE.ProviderBizError
  return entry.text[locale]
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

const GOOGLE_BLOCK_TEXT: Record<GoogleBlockReason | 'default', [string, string]> = {
  BLOCKLIST: ['The content contains blocked terms. Rephrase and try again.', '内容包含被屏蔽的词语，请修改后重试。'],
  IMAGE_SAFETY: ['The generated image was blocked for safety reasons. Try a different prompt.', '生成的图片因安全原因被拦截，请更换描述后重试。'],
  LANGUAGE: ['This language is not supported. Try asking in another language.', '暂不支持该语言，请换一种语言提问。'],
  OTHER: ['The content was blocked for an unspecified reason. Rephrase and try again.', '内容因未说明的原因被拦截，请修改后重试。'],
  PROHIBITED_CONTENT: ['The request may contain prohibited content. Adjust it to follow the usage policy.', '请求可能包含违禁内容，请按使用规范调整。'],
  RECITATION: ['The reply was blocked because it may recite copyrighted material. Ask for original content.', '回复可能复述受版权保护的内容而被拦截，请改为请求原创内容。'],
  SAFETY: ['The content was blocked by the safety settings. Rephrase the request.', '内容被安全设置拦截，请调整请求。'],
  SPII: ['The content may contain sensitive personal information. Remove it and retry.', '内容可能包含敏感个人信息，请删除后重试。'],
  default: ['The content was blocked. Rephrase and try again.', '内容被拦截，请修改后重试。']
}

/** Localised text for a Google prompt/candidate block reason (providers.md §8). */
export function googleBlockReasonText(reason: string | undefined, locale: Locale = 'en'): string {
  const entry = GOOGLE_BLOCK_TEXT[(reason ?? 'default') as GoogleBlockReason] ?? GOOGLE_BLOCK_TEXT.default
  return entry[locale === 'en' ? 0 : 1]
}
