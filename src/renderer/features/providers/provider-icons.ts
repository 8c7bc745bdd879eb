// Provider logos from LobeHub's icon set (@lobehub/icons-static-svg, MIT): monochrome SVGs
// drawn in currentColor, so the same file suits both themes when used as a CSS mask. One
// import per catalogue provider keeps the bundle to the ~60 logos in use (the package has 950).
// A provider without a logo here gets a monogram (see provider-icon.tsx).
import icon_ai21 from '@lobehub/icons-static-svg/icons/ai21.svg?url'
import icon_ai302 from '@lobehub/icons-static-svg/icons/ai302.svg?url'
import icon_ai360 from '@lobehub/icons-static-svg/icons/ai360.svg?url'
import icon_aihubmix from '@lobehub/icons-static-svg/icons/aihubmix.svg?url'
import icon_anthropic from '@lobehub/icons-static-svg/icons/anthropic.svg?url'
import icon_azure from '@lobehub/icons-static-svg/icons/azure.svg?url'
import icon_azureai from '@lobehub/icons-static-svg/icons/azureai.svg?url'
import icon_baichuan from '@lobehub/icons-static-svg/icons/baichuan.svg?url'
import icon_bedrock from '@lobehub/icons-static-svg/icons/bedrock.svg?url'
import icon_bfl from '@lobehub/icons-static-svg/icons/bfl.svg?url'
import icon_cloudflare from '@lobehub/icons-static-svg/icons/cloudflare.svg?url'
import icon_cohere from '@lobehub/icons-static-svg/icons/cohere.svg?url'
import icon_deepseek from '@lobehub/icons-static-svg/icons/deepseek.svg?url'
import icon_fal from '@lobehub/icons-static-svg/icons/fal.svg?url'
import icon_fireworksai from '@lobehub/icons-static-svg/icons/fireworks.svg?url'
import icon_giteeai from '@lobehub/icons-static-svg/icons/giteeai.svg?url'
import icon_github from '@lobehub/icons-static-svg/icons/github.svg?url'
import icon_google from '@lobehub/icons-static-svg/icons/google.svg?url'
import icon_groq from '@lobehub/icons-static-svg/icons/groq.svg?url'
import icon_higress from '@lobehub/icons-static-svg/icons/higress.svg?url'
import icon_huggingface from '@lobehub/icons-static-svg/icons/huggingface.svg?url'
import icon_hunyuan from '@lobehub/icons-static-svg/icons/hunyuan.svg?url'
import icon_infiniai from '@lobehub/icons-static-svg/icons/infinigence.svg?url'
import icon_internlm from '@lobehub/icons-static-svg/icons/internlm.svg?url'
import icon_jina from '@lobehub/icons-static-svg/icons/jina.svg?url'
import icon_lmstudio from '@lobehub/icons-static-svg/icons/lmstudio.svg?url'
import icon_minimax from '@lobehub/icons-static-svg/icons/minimax.svg?url'
import icon_mistral from '@lobehub/icons-static-svg/icons/mistral.svg?url'
import icon_modelscope from '@lobehub/icons-static-svg/icons/modelscope.svg?url'
import icon_moonshot from '@lobehub/icons-static-svg/icons/moonshot.svg?url'
import icon_novita from '@lobehub/icons-static-svg/icons/novita.svg?url'
import icon_nvidia from '@lobehub/icons-static-svg/icons/nvidia.svg?url'
import icon_ollama from '@lobehub/icons-static-svg/icons/ollama.svg?url'
import icon_openai from '@lobehub/icons-static-svg/icons/openai.svg?url'
import icon_openrouter from '@lobehub/icons-static-svg/icons/openrouter.svg?url'
import icon_perplexity from '@lobehub/icons-static-svg/icons/perplexity.svg?url'
import icon_ppio from '@lobehub/icons-static-svg/icons/ppio.svg?url'
import icon_qiniu from '@lobehub/icons-static-svg/icons/qiniu.svg?url'
import icon_qwen from '@lobehub/icons-static-svg/icons/qwen.svg?url'
import icon_sambanova from '@lobehub/icons-static-svg/icons/sambanova.svg?url'
import icon_search1api from '@lobehub/icons-static-svg/icons/search1api.svg?url'
import icon_sensenova from '@lobehub/icons-static-svg/icons/sensenova.svg?url'
import icon_siliconcloud from '@lobehub/icons-static-svg/icons/siliconcloud.svg?url'
import icon_spark from '@lobehub/icons-static-svg/icons/spark.svg?url'
import icon_stepfun from '@lobehub/icons-static-svg/icons/stepfun.svg?url'
import icon_tencentcloud from '@lobehub/icons-static-svg/icons/tencentcloud.svg?url'
import icon_togetherai from '@lobehub/icons-static-svg/icons/together.svg?url'
import icon_upstage from '@lobehub/icons-static-svg/icons/upstage.svg?url'
import icon_v0 from '@lobehub/icons-static-svg/icons/v0.svg?url'
import icon_vertexai from '@lobehub/icons-static-svg/icons/vertexai.svg?url'
import icon_vllm from '@lobehub/icons-static-svg/icons/vllm.svg?url'
import icon_volcengine from '@lobehub/icons-static-svg/icons/volcengine.svg?url'
import icon_wenxin from '@lobehub/icons-static-svg/icons/wenxin.svg?url'
import icon_xai from '@lobehub/icons-static-svg/icons/xai.svg?url'
import icon_xinference from '@lobehub/icons-static-svg/icons/xinference.svg?url'
import icon_zeroone from '@lobehub/icons-static-svg/icons/zeroone.svg?url'
import icon_zhipu from '@lobehub/icons-static-svg/icons/zhipu.svg?url'

export const PROVIDER_ICONS: Readonly<Record<string, string>> = {
  ai21: icon_ai21,
  ai302: icon_ai302,
  ai360: icon_ai360,
  aihubmix: icon_aihubmix,
  anthropic: icon_anthropic,
  azure: icon_azure,
  azureai: icon_azureai,
  baichuan: icon_baichuan,
  bedrock: icon_bedrock,
  bfl: icon_bfl,
  cloudflare: icon_cloudflare,
  cohere: icon_cohere,
  deepseek: icon_deepseek,
  fal: icon_fal,
  fireworksai: icon_fireworksai,
  giteeai: icon_giteeai,
  github: icon_github,
  google: icon_google,
  groq: icon_groq,
  higress: icon_higress,
  huggingface: icon_huggingface,
  hunyuan: icon_hunyuan,
  infiniai: icon_infiniai,
  internlm: icon_internlm,
  jina: icon_jina,
  lmstudio: icon_lmstudio,
  minimax: icon_minimax,
  mistral: icon_mistral,
  modelscope: icon_modelscope,
  moonshot: icon_moonshot,
  novita: icon_novita,
  nvidia: icon_nvidia,
  ollama: icon_ollama,
  openai: icon_openai,
  openrouter: icon_openrouter,
  perplexity: icon_perplexity,
  ppio: icon_ppio,
  qiniu: icon_qiniu,
  qwen: icon_qwen,
  sambanova: icon_sambanova,
  search1api: icon_search1api,
  sensenova: icon_sensenova,
  siliconcloud: icon_siliconcloud,
  spark: icon_spark,
  stepfun: icon_stepfun,
  tencentcloud: icon_tencentcloud,
  togetherai: icon_togetherai,
  upstage: icon_upstage,
  v0: icon_v0,
  vertexai: icon_vertexai,
  vllm: icon_vllm,
  volcengine: icon_volcengine,
  wenxin: icon_wenxin,
  xai: icon_xai,
  xinference: icon_xinference,
  zeroone: icon_zeroone,
  zhipu: icon_zhipu
}
