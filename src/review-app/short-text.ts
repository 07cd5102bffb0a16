/** `text` cut to `width` characters, the last one an ellipsis when it was longer. */
export const short = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text);
