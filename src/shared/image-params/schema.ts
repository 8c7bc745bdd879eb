import { z } from 'zod'

/** Zod form of ImageModelParameters (types.ts), for catalogue checks and custom models. */
const range = z
  .object({ default: z.number(), min: z.number(), max: z.number(), step: z.number().positive().optional() })
  .strict()
  .refine((r) => r.min <= r.default && r.default <= r.max, { message: 'default must lie within min..max' })
const enumOf = z
  .object({ default: z.string(), enum: z.array(z.string()).min(1) })
  .strict()
  .refine((e) => e.enum.includes(e.default), { message: 'default must be one of enum' })

export const imageModelParametersSchema = z
  .object({
    prompt: z.object({ default: z.string() }).strict(),
    seed: z.object({ default: z.number().nullable() }).strict().optional(),
    imageUrl: z.object({ default: z.string().nullable(), maxFileSize: z.number().positive().optional() }).strict().optional(),
    imageUrls: z
      .object({ default: z.array(z.string()), maxCount: z.number().int().positive().optional(), maxFileSize: z.number().positive().optional() })
      .strict()
      .optional(),
    size: enumOf.optional(),
    aspectRatio: enumOf.optional(),
    resolution: enumOf.optional(),
    width: range.optional(),
    height: range.optional(),
    cfg: range.optional(),
    steps: range.optional()
  })
  .catchall(z.object({ default: z.unknown() }).passthrough())
