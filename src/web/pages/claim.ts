import { escapeHtml } from '../layout.js';
import type { ClaimLanguage } from '../../claims/claim-language.js';

/** What the claim page needs to say; no token, no full contact (it is masked). */
export interface ClaimView {
  senderName: string;
  amountText: string;
  usdcText: string;
  note?: string;
  contactKind: 'phone' | 'email';
  maskedContact: string;
  expiresOn: string;
  status: 'waiting' | 'open' | 'claimed' | 'returned';
  language: ClaimLanguage;
  /** Sent with a test key (livemode false): test money, said at the top of the page. */
  testMode: boolean;
}

type Texts = {
  title: string;
  sent: (v: ClaimView) => string;
  what: string;
  how: (v: ClaimView) => string;
  until: (v: ClaimView) => string;
  claim: string;
  signup: string;
  login: string;
  name: string;
  email: string;
  phone: string;
  password: string;
  claimed: string;
  returned: string;
  waiting: string;
  done: (usdc: string) => string;
  /** A test key's claim: what the person must know before anything else. */
  test: string;
};

const contact = (v: ClaimView, phone: string, email: string) => (v.contactKind === 'phone' ? phone : email);

/** The sender's language (docs/claims.md); English is the fallback for anything missing. */
const TEXTS: Record<ClaimLanguage, Texts> = {
  en: {
    title: 'Money for you',
    sent: (v) => `${v.senderName} sent you ${v.amountText}.`,
    what: 'It is a digital dollar (USDC) held safely for you by StablePay until you claim it. You can keep it, send it on or pay bills with it.',
    how: (v) => `To receive it, create a free account or sign in with ${contact(v, 'the phone number', 'the email')} it was sent to (${v.maskedContact}).`,
    until: (v) => `Claim it by ${v.expiresOn}. After that it goes back to ${v.senderName}.`,
    claim: 'Claim the money',
    signup: 'Create an account and claim',
    login: 'I already have an account: sign in',
    name: 'Your name',
    email: 'Email',
    phone: 'Phone number',
    password: 'Password (8 characters or more)',
    claimed: 'This money has been claimed. It is in the wallet of the account that claimed it.',
    returned: 'This money was not claimed in time or was canceled; it went back to the sender.',
    waiting: 'This money is still on its way. Try again in a minute.',
    done: (u) => `Done: ${u} is in your wallet.`,
    test: 'Test mode: this is test money, sent with a test key. It is not real money.',
  },
  fr: {
    title: 'De l’argent pour vous',
    sent: (v) => `${v.senderName} vous a envoyé ${v.amountText}.`,
    what: 'C’est un dollar numérique (USDC) gardé en sécurité pour vous par StablePay jusqu’à ce que vous le réclamiez. Vous pouvez le garder, l’envoyer ou payer des factures.',
    how: (v) => `Pour le recevoir, créez un compte gratuit ou connectez-vous avec ${contact(v, 'le numéro de téléphone', 'l’e-mail')} auquel il a été envoyé (${v.maskedContact}).`,
    until: (v) => `Réclamez-le avant le ${v.expiresOn}. Ensuite, il retourne à ${v.senderName}.`,
    claim: 'Recevoir l’argent',
    signup: 'Créer un compte et recevoir',
    login: 'J’ai déjà un compte : me connecter',
    name: 'Votre nom',
    email: 'E-mail',
    phone: 'Numéro de téléphone',
    password: 'Mot de passe (8 caractères ou plus)',
    claimed: 'Cet argent a été reçu. Il est dans le portefeuille du compte qui l’a réclamé.',
    returned: 'Cet argent n’a pas été réclamé à temps ou a été annulé ; il est retourné à l’expéditeur.',
    waiting: 'Cet argent est encore en route. Réessayez dans une minute.',
    done: (u) => `C’est fait : ${u} sont dans votre portefeuille.`,
    test: 'Mode test : c’est de l’argent de test, envoyé avec une clé de test. Ce n’est pas de l’argent réel.',
  },
  sw: {
    title: 'Pesa yako',
    sent: (v) => `${v.senderName} amekutumia ${v.amountText}.`,
    what: 'Ni dola ya kidijitali (USDC) inayohifadhiwa salama na StablePay hadi uipokee. Unaweza kuiweka, kuituma au kulipia bili.',
    how: (v) => `Ili kuipokea, fungua akaunti bure au ingia kwa ${contact(v, 'namba ya simu', 'barua pepe')} iliyotumiwa (${v.maskedContact}).`,
    until: (v) => `Ipokee kabla ya ${v.expiresOn}. Baada ya hapo inarudi kwa ${v.senderName}.`,
    claim: 'Pokea pesa',
    signup: 'Fungua akaunti na upokee',
    login: 'Nina akaunti tayari: ingia',
    name: 'Jina lako',
    email: 'Barua pepe',
    phone: 'Namba ya simu',
    password: 'Nenosiri (herufi 8 au zaidi)',
    claimed: 'Pesa hii imeshapokelewa. Iko kwenye pochi ya akaunti iliyoipokea.',
    returned: 'Pesa hii haikupokelewa kwa wakati au ilighairiwa; imerudi kwa mtumaji.',
    waiting: 'Pesa hii bado iko njiani. Jaribu tena baada ya dakika moja.',
    done: (u) => `Imekamilika: ${u} ziko kwenye pochi yako.`,
    test: 'Hali ya majaribio: hizi ni pesa za majaribio, zilizotumwa kwa ufunguo wa majaribio. Si pesa halisi.',
  },
  pt: {
    title: 'Dinheiro para você',
    sent: (v) => `${v.senderName} enviou ${v.amountText} para você.`,
    what: 'É um dólar digital (USDC) guardado com segurança pela StablePay até você resgatar. Você pode guardar, enviar ou pagar contas.',
    how: (v) => `Para receber, crie uma conta grátis ou entre com ${contact(v, 'o número de telefone', 'o e-mail')} para o qual foi enviado (${v.maskedContact}).`,
    until: (v) => `Resgate até ${v.expiresOn}. Depois disso, volta para ${v.senderName}.`,
    claim: 'Receber o dinheiro',
    signup: 'Criar conta e receber',
    login: 'Já tenho conta: entrar',
    name: 'Seu nome',
    email: 'E-mail',
    phone: 'Número de telefone',
    password: 'Senha (8 caracteres ou mais)',
    claimed: 'Este dinheiro já foi resgatado. Está na carteira da conta que o resgatou.',
    returned: 'Este dinheiro não foi resgatado a tempo ou foi cancelado; voltou para quem enviou.',
    waiting: 'Este dinheiro ainda está a caminho. Tente de novo em um minuto.',
    done: (u) => `Pronto: ${u} estão na sua carteira.`,
    test: 'Modo de teste: este é dinheiro de teste, enviado com uma chave de teste. Não é dinheiro real.',
  },
  es: {
    title: 'Dinero para ti',
    sent: (v) => `${v.senderName} te envió ${v.amountText}.`,
    what: 'Es un dólar digital (USDC) que StablePay te guarda de forma segura hasta que lo reclames. Puedes guardarlo, enviarlo o pagar tus cuentas con él.',
    how: (v) => `Para recibirlo, crea una cuenta gratis o inicia sesión con ${contact(v, 'el número de teléfono', 'el correo')} al que se envió (${v.maskedContact}).`,
    until: (v) => `Reclámalo antes del ${v.expiresOn}. Después, regresa a ${v.senderName}.`,
    claim: 'Recibir el dinero',
    signup: 'Crear cuenta y recibir',
    login: 'Ya tengo cuenta: iniciar sesión',
    name: 'Tu nombre',
    email: 'Correo electrónico',
    phone: 'Número de teléfono',
    password: 'Contraseña (8 caracteres o más)',
    claimed: 'Este dinero ya fue reclamado. Está en la billetera de la cuenta que lo reclamó.',
    returned: 'Este dinero no se reclamó a tiempo o fue cancelado; regresó a quien lo envió.',
    waiting: 'Este dinero todavía va en camino. Intenta de nuevo en un minuto.',
    done: (u) => `Listo: ${u} ya están en tu billetera.`,
    test: 'Modo de prueba: este es dinero de prueba, enviado con una clave de prueba. No es dinero real.',
  },
  hi: {
    title: 'Aapke liye paise',
    sent: (v) => `${v.senderName} ne aapko ${v.amountText} bheje hain.`,
    what: 'Yeh digital dollar (USDC) hai, jo StablePay aapke liye surakshit rakhta hai jab tak aap ise claim nahi karte. Aap ise rakh sakte hain, aage bhej sakte hain ya bill bhar sakte hain.',
    how: (v) => `Paise lene ke liye free account banaiye ya usi ${contact(v, 'phone number', 'email')} se sign in kijiye jis par yeh bheja gaya tha (${v.maskedContact}).`,
    until: (v) => `${v.expiresOn} tak claim kar lijiye. Uske baad yeh ${v.senderName} ko wapas chala jayega.`,
    claim: 'Paise claim karein',
    signup: 'Account banaiye aur claim kijiye',
    login: 'Mera account pehle se hai: sign in',
    name: 'Aapka naam',
    email: 'Email',
    phone: 'Phone number',
    password: 'Password (kam se kam 8 characters)',
    claimed: 'Yeh paise claim ho chuke hain. Yeh us account ke wallet mein hain jisne claim kiya.',
    returned: 'Yeh paise time par claim nahi hue ya cancel ho gaye; bhejne wale ko wapas chale gaye.',
    waiting: 'Yeh paise abhi raaste mein hain. Ek minute baad phir try kijiye.',
    done: (u) => `Ho gaya: ${u} aapke wallet mein hain.`,
    test: 'Test mode: yeh test paisa hai, test key se bheja gaya. Yeh asli paisa nahi hai.',
  },
  pcm: {
    title: 'Money don come for you',
    sent: (v) => `${v.senderName} don send ${v.amountText} give you.`,
    what: 'Na digital dollar (USDC) wey StablePay dey keep safe for you until you collect am. You fit keep am, send am go or use am pay bills.',
    how: (v) => `To collect am, open free account or sign in with the ${contact(v, 'phone number', 'email')} wey dem send am to (${v.maskedContact}).`,
    until: (v) => `Collect am before ${v.expiresOn}. After that, e go go back to ${v.senderName}.`,
    claim: 'Collect the money',
    signup: 'Open account and collect',
    login: 'I get account already: sign in',
    name: 'Your name',
    email: 'Email',
    phone: 'Phone number',
    password: 'Password (8 characters or more)',
    claimed: 'Person don collect this money. E dey the wallet of the account wey collect am.',
    returned: 'Nobody collect this money on time or dem cancel am; e don go back to the person wey send am.',
    waiting: 'This money still dey road. Try again after one minute.',
    done: (u) => `E don enter: ${u} dey your wallet now.`,
    test: 'Test mode: na test money be dis, dem send am with test key. E no be real money.',
  },
  tl: {
    title: 'May pera para sa iyo',
    sent: (v) => `Pinadalhan ka ni ${v.senderName} ng ${v.amountText}.`,
    what: 'Ito ay digital dollar (USDC) na ligtas na itinatago ng StablePay para sa iyo hanggang i-claim mo. Puwede mo itong itabi, ipadala o ipambayad ng bills.',
    how: (v) => `Para matanggap ito, gumawa ng libreng account o mag-sign in gamit ang ${contact(v, 'phone number', 'email')} kung saan ito ipinadala (${v.maskedContact}).`,
    until: (v) => `I-claim ito bago ang ${v.expiresOn}. Pagkatapos noon, babalik ito kay ${v.senderName}.`,
    claim: 'I-claim ang pera',
    signup: 'Gumawa ng account at i-claim',
    login: 'May account na ako: mag-sign in',
    name: 'Pangalan mo',
    email: 'Email',
    phone: 'Phone number',
    password: 'Password (8 characters o higit pa)',
    claimed: 'Na-claim na ang perang ito. Nasa wallet na ito ng account na nag-claim.',
    returned: 'Hindi na-claim sa oras o kinansela ang perang ito; bumalik ito sa nagpadala.',
    waiting: 'Papunta pa ang perang ito. Subukan ulit pagkalipas ng isang minuto.',
    done: (u) => `Tapos na: nasa wallet mo na ang ${u}.`,
    test: 'Test mode: test na pera ito, ipinadala gamit ang test key. Hindi ito totoong pera.',
  },
};

/** "Done: 5.00 USDC is in your wallet." in the page's language. */
export function claimDoneText(language: ClaimLanguage, usdc: string): string {
  return (TEXTS[language] ?? TEXTS.en).done(usdc);
}

/**
 * The page a claim link opens (/claim/:token): what the money is, from whom, and what to do,
 * in the sender's language; made for a phone (one column, large targets). Plain form posts,
 * no script needed.
 */
export function claimPage(v: ClaimView, o: { action: string; signedInAs?: string; outcome?: { ok: boolean; text: string } }): string {
  const t = TEXTS[v.language] ?? TEXTS.en;
  const e = escapeHtml;
  const next = encodeURIComponent(o.action);
  let body: string;
  if (v.status === 'claimed') body = `<p class="notice" id="state">${e(t.claimed)}</p>`;
  else if (v.status === 'returned') body = `<p class="notice" id="state">${e(t.returned)}</p>`;
  else if (v.status === 'waiting') body = `<p class="hint" id="state">${e(t.waiting)}</p>`;
  else if (o.signedInAs) {
    body = `<form method="post" action="${e(o.action)}"><button type="submit" class="btn btn-primary btn-block" id="claim">${e(t.claim)}</button></form>`;
  } else {
    body = `<form method="post" action="${e(o.action)}/signup" class="stack" id="signup">
  <label>${e(t.name)}<input type="text" name="name" autocomplete="name" required maxlength="80"></label>
  <label>${e(t.email)}<input type="email" name="email" autocomplete="email" required maxlength="254"></label>
  ${v.contactKind === 'phone' ? `<label>${e(t.phone)}<input type="tel" name="phone" autocomplete="tel" required maxlength="20"></label>` : ''}
  <label>${e(t.password)}<input type="password" name="password" autocomplete="new-password" required minlength="8" maxlength="200"></label>
  <button type="submit" class="btn btn-primary btn-block" id="signup-claim">${e(t.signup)}</button>
</form>
<p><a class="btn btn-quiet btn-block" id="login" href="/app/login?next=${next}">${e(t.login)}</a></p>`;
  }
  const outcome = o.outcome ? `<p class="${o.outcome.ok ? 'notice' : 'error'}" id="outcome" role="status">${e(o.outcome.text)}</p>` : '';
  return `<!doctype html>
<html lang="${e(v.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${e(t.title)} · StablePay</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/assets/app.css">
<style>.claim{max-width:28rem;margin:0 auto}.claim .amount{font-size:1.6rem;font-weight:700;margin:.25rem 0}.claim label{display:block;margin:.6rem 0}.claim input{width:100%;min-height:2.75rem;box-sizing:border-box}.claim .btn{min-height:2.75rem}</style>
</head>
<body>
<main id="main" class="claim">
<section class="card" aria-labelledby="claim-title">
  ${v.testMode ? `<p class="notice" id="test-mode">${e(t.test)}</p>` : ''}
  <h1 id="claim-title">${e(t.title)}</h1>
  <p id="from">${e(t.sent(v))}</p>
  <p class="amount" id="amount">${e(v.amountText)} <span class="hint">(${e(v.usdcText)})</span></p>
  ${v.note ? `<blockquote id="note">“${e(v.note)}”</blockquote>` : ''}
  <p id="what">${e(t.what)}</p>
  ${v.status === 'open' ? `<p id="how">${e(t.how(v))}</p><p class="hint" id="until">${e(t.until(v))}</p>` : ''}
  ${outcome}
  ${body}
</section>
</main>
</body>
</html>`;
}
