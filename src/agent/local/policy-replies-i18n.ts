import type { Lang } from './language.js';
import { wordTable } from '../../lib/word-table.js';

/**
 * A spend policy's refusal or hold (src/policies: rules.ts, guard.ts) in the message's language,
 * whole: which rule applied (whose policy, the limit, the window, the recipient, the action) and
 * what the person can do, with the figures exactly as the policy wrote them. The policy's English
 * sentences are the source: each has a pattern here (a test holds every one of them to its
 * pattern, so a reworded rule fails the test rather than falling back to English silently).
 */

type L = Exclude<Lang, 'en'>;
type Tr = Readonly<Record<L, string>>;

const fill = (t: string, v: Record<string, string>): string => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');

const WHOSE: Readonly<Record<'account' | 'key', Tr>> = {
  account: { pcm: 'your spend policy', sw: 'sera yako ya matumizi', fr: 'votre politique de dépenses', pt: 'sua política de gastos', es: 'tu política de gastos', hi: 'aapki spend policy', tl: 'iyong spend policy' },
  key: { pcm: 'this API key spend policy', sw: 'sera ya matumizi ya ufunguo huu wa API', fr: 'la politique de dépenses de cette clé API', pt: 'a política de gastos desta chave de API', es: 'la política de gastos de esta clave API', hi: 'is API key ki spend policy', tl: 'spend policy ng API key na ito' },
};

const ACTIONS: Readonly<Record<string, Tr>> = wordTable({
  'sending money': { pcm: 'to send money', sw: 'kutuma pesa', fr: "l'envoi d'argent", pt: 'enviar dinheiro', es: 'enviar dinero', hi: 'paise bhejna', tl: 'pagpapadala ng pera' },
  'paying bills': { pcm: 'to pay bills', sw: 'kulipa bili', fr: 'le paiement de factures', pt: 'pagar contas', es: 'pagar facturas', hi: 'bill bharna', tl: 'pagbabayad ng bills' },
  'staking on markets': { pcm: 'to stake for markets', sw: 'kuweka dau kwenye masoko', fr: 'les mises sur les marchés', pt: 'apostar em mercados', es: 'apostar en mercados', hi: 'markets par stake lagana', tl: 'pagtaya sa mga market' },
  'creating payment links': { pcm: 'to create payment links', sw: 'kutengeneza viungo vya malipo', fr: 'la création de liens de paiement', pt: 'criar links de pagamento', es: 'crear links de pago', hi: 'payment link banana', tl: 'paggawa ng payment link' },
});

const WINDOWS: Readonly<Record<string, Tr>> = wordTable({
  daily: { pcm: 'daily (last 24 hours)', sw: 'cha siku (saa 24 zilizopita)', fr: 'quotidien (dernières 24 heures)', pt: 'diário (últimas 24 horas)', es: 'diario (últimas 24 horas)', hi: 'daily (pichhle 24 ghante)', tl: 'araw-araw (huling 24 oras)' },
  weekly: { pcm: 'weekly (last 7 days)', sw: 'cha wiki (siku 7 zilizopita)', fr: 'hebdomadaire (7 derniers jours)', pt: 'semanal (últimos 7 dias)', es: 'semanal (últimos 7 días)', hi: 'weekly (pichhle 7 din)', tl: 'lingguhan (huling 7 araw)' },
  monthly: { pcm: 'monthly (last 30 days)', sw: 'cha mwezi (siku 30 zilizopita)', fr: 'mensuel (30 derniers jours)', pt: 'mensal (últimos 30 dias)', es: 'mensual (últimos 30 días)', hi: 'monthly (pichhle 30 din)', tl: 'buwanan (huling 30 araw)' },
});

const WHAT_TO_DO: Tr = {
  pcm: 'You fit change the policy for the Developers screen for the app (sign in with your password).',
  sw: 'Unaweza kubadilisha sera kwenye skrini ya Developers ya programu (ukiwa umeingia, kwa nenosiri lako).',
  fr: "Vous pouvez modifier la politique dans l'écran Développeurs de l'application (connecté, avec votre mot de passe).",
  pt: 'Você pode mudar a política na tela Desenvolvedores do app (com login e senha).',
  es: 'Puedes cambiar la política en la pantalla Desarrolladores de la app (con sesión iniciada y tu contraseña).',
  hi: 'Aap app ki Developers screen par policy badal sakte hain (sign in karke, apne password se).',
  tl: 'Puwede mong baguhin ang policy sa Developers screen ng app (naka-sign in, gamit ang password mo).',
};

const NOT_ALLOWED: Tr = {
  pcm: 'I no do am: {whose} no allow {action}. {todo}', sw: 'Haikufanyika: {whose} hairuhusu {action}. {todo}',
  fr: "Non effectué : {whose} n'autorise pas {action}. {todo}", pt: 'Não feito: {whose} não permite {action}. {todo}',
  es: 'No se hizo: {whose} no permite {action}. {todo}', hi: 'Nahi kiya: {whose} {action} allow nahi karti. {todo}',
  tl: 'Hindi ginawa: hindi pinapayagan ng {whose} ang {action}. {todo}',
};
const BLOCKED: Tr = {
  pcm: 'I no send am: {who} dey the blocklist for {whose}. {todo}', sw: 'Haikutumwa: {who} yuko kwenye orodha ya waliozuiwa ya {whose}. {todo}',
  fr: "Non envoyé : {who} est sur la liste de blocage de {whose}. {todo}", pt: 'Não enviado: {who} está na lista de bloqueio de {whose}. {todo}',
  es: 'No enviado: {who} está en la lista de bloqueo de {whose}. {todo}', hi: 'Nahi bheja: {who} {whose} ki blocklist par hai. {todo}',
  tl: 'Hindi naipadala: nasa blocklist ng {whose} si {who}. {todo}',
};
const NOT_LISTED: Tr = {
  pcm: 'I no send am: {who} no dey the list of people wey {whose} allow. Add dem to the allowlist first. {todo}',
  sw: 'Haikutumwa: {who} hayuko kwenye orodha ya wapokeaji wanaoruhusiwa na {whose}. Mwongeze kwenye orodha ya walioruhusiwa kwanza. {todo}',
  fr: "Non envoyé : {who} n'est pas dans la liste des destinataires autorisés par {whose}. Ajoutez-le d'abord à la liste autorisée. {todo}",
  pt: 'Não enviado: {who} não está na lista de destinatários permitidos por {whose}. Adicione primeiro à lista permitida. {todo}',
  es: 'No enviado: {who} no está en la lista de destinatarios que permite {whose}. Agrégalo primero a la lista permitida. {todo}',
  hi: 'Nahi bheja: {who} {whose} ki allowed recipients list mein nahi hai. Pehle unhe allowlist mein jodiye. {todo}',
  tl: 'Hindi naipadala: wala si {who} sa listahan ng recipients na pinapayagan ng {whose}. Idagdag muna siya sa allowlist. {todo}',
};
const PER_TX: Tr = {
  pcm: 'I no do am: {asked} pass the limit of {cap} per transaction for {whose}. Try smaller amount. {todo}',
  sw: 'Haikufanyika: {asked} inazidi kikomo cha {cap} kwa kila muamala katika {whose}. Jaribu kiasi kidogo zaidi. {todo}',
  fr: 'Non effectué : {asked} dépasse la limite de {cap} par transaction de {whose}. Essayez un montant plus petit. {todo}',
  pt: 'Não feito: {asked} passa do limite de {cap} por transação de {whose}. Tente um valor menor. {todo}',
  es: 'No se hizo: {asked} supera el límite de {cap} por transacción de {whose}. Prueba con un monto menor. {todo}',
  hi: 'Nahi kiya: {asked} {whose} ki {cap} per transaction limit se zyada hai. Chhota amount try kijiye. {todo}',
  tl: 'Hindi ginawa: lampas ang {asked} sa limit na {cap} kada transaksyon ng {whose}. Subukan ang mas maliit na halaga. {todo}',
};
const ROLLING: Tr = {
  pcm: 'I no do am: {asked} go pass the {window} cap of {cap} for {whose}; {left} remain. Try smaller amount or wait. {todo}',
  sw: 'Haikufanyika: {asked} ingezidi kikomo {window} cha {cap} katika {whose}; kimebaki {left}. Jaribu kiasi kidogo au subiri. {todo}',
  fr: 'Non effectué : {asked} dépasserait le plafond {window} de {cap} de {whose} ; il reste {left}. Essayez un montant plus petit ou attendez. {todo}',
  pt: 'Não feito: {asked} passaria do teto {window} de {cap} de {whose}; restam {left}. Tente um valor menor ou espere. {todo}',
  es: 'No se hizo: {asked} superaría el tope {window} de {cap} de {whose}; quedan {left}. Prueba con un monto menor o espera. {todo}',
  hi: 'Nahi kiya: {asked} se {whose} ki {window} cap {cap} paar ho jayegi; {left} bacha hai. Chhota amount try kijiye ya intezaar kijiye. {todo}',
  tl: 'Hindi ginawa: lalampas ang {asked} sa {window} na cap na {cap} ng {whose}; {left} na lang ang natitira. Subukan ang mas maliit na halaga o maghintay. {todo}',
};
const APPROVAL: Tr = {
  pcm: 'This one pass the approval limit of {limit} for {whose}, so e dey wait for you: confirm am when you sign in for the app (or with the Confirm button for chat or Telegram). Nothing don move yet.',
  sw: 'Hii inazidi kiwango cha idhini cha {limit} katika {whose}, kwa hiyo inakusubiri: ithibitishe ukiwa umeingia kwenye programu (au kwa kitufe cha Thibitisha kwenye chat au Telegram). Hakuna kilichohamishwa bado.',
  fr: "Cela dépasse le seuil d'approbation de {limit} de {whose}, donc cela vous attend : confirmez-le connecté à l'application (ou avec le bouton Confirmer dans le chat ou Telegram). Rien n'a encore bougé.",
  pt: 'Isso passa do limite de aprovação de {limit} de {whose}, então aguarda você: confirme com login no app (ou com o botão Confirmar no chat ou no Telegram). Nada foi movido ainda.',
  es: 'Esto supera el umbral de aprobación de {limit} de {whose}, así que te espera: confírmalo con sesión iniciada en la app (o con el botón Confirmar en el chat o Telegram). Todavía no se movió nada.',
  hi: 'Yeh {whose} ki {limit} approval limit se zyada hai, isliye aapka intezaar hai: app mein sign in karke confirm kijiye (ya chat ya Telegram mein Confirm button se). Abhi kuch nahi gaya.',
  tl: 'Lampas ito sa approval threshold na {limit} ng {whose}, kaya hinihintay ka nito: i-confirm ito habang naka-sign in sa app (o gamit ang Confirm button sa chat o Telegram). Wala pang gumalaw.',
};
const PAUSED: Tr = {
  pcm: 'E don pause: this API key get too many payments wey fail or dem refuse for short time, so e no fit move money for {s} more seconds. Nothing happen. Check wetin your integration dey retry; the account owner fit still do am for the app.',
  sw: 'Imesimamishwa: ufunguo huu wa API ulikuwa na malipo mengi yaliyokataliwa au kushindwa kwa muda mfupi, kwa hiyo hauwezi kuhamisha pesa kwa sekunde {s} zaidi. Hakuna kilichofanyika. Angalia kinachojaribiwa tena na mfumo wako; mwenye akaunti bado anaweza kutumia programu.',
  fr: "En pause : cette clé API a eu trop de paiements refusés ou échoués en peu de temps, elle ne peut plus déplacer d'argent pendant {s} secondes. Rien n'a été fait. Vérifiez ce que votre intégration relance ; le titulaire du compte peut toujours agir dans l'application.",
  pt: 'Pausado: esta chave de API teve pagamentos recusados ou falhos demais em pouco tempo, então não pode mover dinheiro por mais {s} segundos. Nada foi feito. Veja o que sua integração está repetindo; o titular da conta ainda pode agir pelo app.',
  es: 'En pausa: esta clave API tuvo demasiados pagos rechazados o fallidos en poco tiempo, así que no puede mover dinero durante {s} segundos más. No se hizo nada. Revisa qué está reintentando tu integración; el titular de la cuenta aún puede actuar en la app.',
  hi: 'Ruka hua: is API key ke thode samay mein bahut saare payments refuse ya fail hue, isliye yeh {s} second aur paise nahi bhej sakti. Kuch nahi hua. Dekhiye aapka integration kya retry kar raha hai; account holder app mein ab bhi kar sakte hain.',
  tl: 'Naka-pause: masyadong maraming tinanggihan o pumalyang bayad ang API key na ito sa maikling panahon, kaya hindi ito makakagalaw ng pera sa loob ng {s} segundo pa. Walang ginawa. Tingnan kung ano ang inuulit ng integration mo; puwede pa ring kumilos ang may-ari ng account sa app.',
};

const W = "(your spend policy|this API key's spend policy)";
const TODO = ' You can change the policy on the Developers screen of the app \\(signed in, with your password\\)\\.$';

/** [English pattern, template, how the captures fill it]. */
const PATTERNS: ReadonlyArray<[RegExp, Tr, (m: RegExpExecArray, lang: L) => Record<string, string> | undefined]> = [
  [new RegExp(`^Not done: ${W} does not allow (.+?)\\.${TODO}`), NOT_ALLOWED, (m, l) => (ACTIONS[m[2]!] ? { whose: m[1]!, action: ACTIONS[m[2]!]![l] } : undefined)],
  [new RegExp(`^Not sent: (.+) is on the blocklist of ${W}\\.${TODO}`), BLOCKED, (m) => ({ who: m[1]!, whose: m[2]! })],
  [new RegExp(`^Not sent: (.+) is not on the list of recipients ${W} allows\\. Add them to the allowlist first\\.${TODO}`), NOT_LISTED, (m) => ({ who: m[1]!, whose: m[2]! })],
  [new RegExp(`^Not done: (.+) is over the limit of (.+) per transaction in ${W}\\. Try a smaller amount\\.${TODO}`), PER_TX, (m) => ({ asked: m[1]!, cap: m[2]!, whose: m[3]! })],
  [
    new RegExp(`^Not done: (.+) would go over the (daily|weekly|monthly) cap of (.+) in ${W} \\(the last [^)]+\\); (.+) is left\\. Try a smaller amount or wait\\.${TODO}`),
    ROLLING,
    (m, l) => ({ asked: m[1]!, window: WINDOWS[m[2]!]![l], cap: m[3]!, whose: m[4]!, left: m[5]! }),
  ],
  [new RegExp(`^This is over the approval threshold of (.+) in ${W}, so it waits for you: `), APPROVAL, (m) => ({ limit: m[1]!, whose: m[2]! })],
  [/^Paused: this API key had too many refused or failed payments in a short time, so it cannot move money for (\d+) more seconds\./, PAUSED, (m) => ({ s: m[1]! })],
];

/** The policy's `message` in `lang`, or undefined (English, or a sentence no pattern knows). */
export function policyReply(message: string, lang: Lang): string | undefined {
  if (lang === 'en') return undefined;
  for (const [re, tr, vars] of PATTERNS) {
    const m = re.exec(message);
    if (!m) continue;
    const v = vars(m, lang);
    if (!v) return undefined;
    if (v.whose) v.whose = WHOSE[v.whose.startsWith('your') ? 'account' : 'key'][lang];
    return fill(tr[lang], { ...v, todo: WHAT_TO_DO[lang] });
  }
  return undefined;
}
