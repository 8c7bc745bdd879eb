import type { Messages } from './en'

export const zhCN: Messages = {
  app: { name: 'Switchboard', tagline: '所有模型，一处使用' },
  nav: { chat: '对话', images: '图像', localModels: '本地模型', settings: '设置', primary: '主导航' },
  init: {
    title: '正在启动 Switchboard',
    idle: '等待启动',
    initializing: '正在准备',
    loadingDependencies: '正在加载模型目录和钥匙串',
    loadingWasm: '正在加载引擎',
    migrating: '正在更新本地数据',
    finished: '即将完成',
    ready: '就绪',
    error: 'Switchboard 无法启动',
    retry: '重试',
    step: '第 {{n}} 步，共 {{total}} 步'
  },
  connection: { connecting: '正在连接核心服务…', reconnecting: '连接已断开，正在重连…' },
  unlock: {
    title: '解锁 Switchboard',
    description: '此 Switchboard 已设置访问密码。',
    password: '访问密码',
    submit: '解锁',
    checking: '正在验证…'
  },
  errors: {
    pageTitle: '出错了',
    pageBody: '页面发生意外错误。你的对话是安全的；请重新加载页面或返回首页。',
    backHome: '返回首页',
    reload: '重新加载',
    notFoundTitle: '页面不存在',
    notFoundBody: '找不到该页面，请检查地址，或返回首页。',
    InvalidAccessCode: '密码不正确或为空，请输入正确的访问密码，或在设置中添加自定义 API Key。'
  },
  pages: {
    chatTitle: '对话',
    chatEmpty: '选择一个模型，开始对话。',
    imagesTitle: '图像',
    imagesEmpty: '使用你已配置密钥的图像模型生成图片。',
    localTitle: '本地模型',
    localEmpty: '通过 Ollama、LM Studio、vLLM 和 Xinference 在本机运行的模型。',
    settingsTitle: '设置'
  },
  settings: {
    appearance: '外观',
    theme: '主题',
    themes: { light: '浅色', dark: '深色', system: '跟随系统' },
    language: '语言',
    about: '关于',
    version: '版本 {{version}}',
    mode: { desktop: '桌面应用', browser: '浏览器模式', test: '测试' }
  }
}
